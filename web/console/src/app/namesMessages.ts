// The words of finding payouts and reviews in the header's search
// (docs/adr/0169), and of who resolved a held payment or hid or showed a
// review (docs/adr/0168), in English and Arabic; spread into the app's tables
// (app/messages.ts), so the Arabic one must have every key.
export const namesEn = {
  "search.payouts": "Payouts",
  "search.reviews": "Reviews",
  "search.partial": "Only the newest {n} were searched; an older one is found by its whole id or its store.",
  "search.itsPayouts": "Its store's payouts",
  "search.moderation": "Moderation",
  "search.hidden": "Hidden",
  "search.reference": "Reference {ref}",
  "search.byStore": "Store found by name",
  "search.reviewBy": "by {name}",
  "search.rating": "{n} of 5 stars",
  "names.heldReview": "Held for review",
  "names.heldResolvedBy": "Resolved by",
  "names.heldUnresolved": "Not yet confirmed or cancelled",
  "names.reviewHiddenBy": "Review hidden {date} by",
  "names.reviewShownBy": "Review shown again {date} by",
};

export const namesAr: Record<keyof typeof namesEn, string> = {
  "search.payouts": "الصرف",
  "search.reviews": "التقييمات",
  "search.partial": "بُحث في أحدث {n} فقط؛ يُعثر على الأقدم بمعرّفه كاملًا أو بمتجره.",
  "search.itsPayouts": "صرف متجره",
  "search.moderation": "الإشراف",
  "search.hidden": "مخفي",
  "search.reference": "المرجع {ref}",
  "search.byStore": "متجر وُجد باسمه",
  "search.reviewBy": "كتبه {name}",
  "search.rating": "{n} من 5 نجوم",
  "names.heldReview": "معلّق للمراجعة",
  "names.heldResolvedBy": "حسمه",
  "names.heldUnresolved": "لم يُؤكَّد ولم يُلغَ بعد",
  "names.reviewHiddenBy": "أُخفي التقييم {date} بواسطة",
  "names.reviewShownBy": "أُعيد إظهار التقييم {date} بواسطة",
};
