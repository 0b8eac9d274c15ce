// The words of the lists' filters and sorts beyond the orders' (the inboxes,
// the store's reviews, moderation, the commission history, products), in
// English and Arabic; spread into the app's tables (app/messages.ts), so
// the Arabic one must have every key.
export const listsEn = {
  "lists.anyDate": "Any date",
  "lists.sort": "Order",
  "lists.newest": "Newest first",
  "lists.oldest": "Oldest first",
  "lists.kind": "Kind",
  "lists.kind.all": "All kinds",
  "lists.kind.orders": "Orders",
  "lists.kind.payments": "Payments and refunds",
  "lists.kind.payouts": "Payouts and wallet",
  "lists.kind.reviews": "Reviews",
  "lists.all": "All",
  "lists.none": "Nothing matches these filters.",
  "lists.ratingSortNoPeriod": "Sorting by rating or helpfulness lists every date: choose “Any date” to use it.",
  "mod.status.pending": "Pending",
  "mod.status.dismissed": "Dismissed",
  "mod.status.resolved": "Review hidden",
  "lists.productSearch": "Search by name",
};

export const listsAr: Record<keyof typeof listsEn, string> = {
  "lists.anyDate": "أي تاريخ",
  "lists.sort": "الترتيب",
  "lists.newest": "الأحدث أولًا",
  "lists.oldest": "الأقدم أولًا",
  "lists.kind": "النوع",
  "lists.kind.all": "كل الأنواع",
  "lists.kind.orders": "الطلبات",
  "lists.kind.payments": "المدفوعات والمبالغ المستردة",
  "lists.kind.payouts": "التحويلات والمحفظة",
  "lists.kind.reviews": "التقييمات",
  "lists.all": "الكل",
  "lists.none": "لا شيء يطابق هذه المرشحات.",
  "lists.ratingSortNoPeriod": "الترتيب حسب التقييم أو الفائدة يشمل كل التواريخ: اختر «أي تاريخ» لاستخدامه.",
  "mod.status.pending": "قيد الانتظار",
  "mod.status.dismissed": "مرفوض",
  "mod.status.resolved": "أُخفي التقييم",
  "lists.productSearch": "البحث بالاسم",
};
