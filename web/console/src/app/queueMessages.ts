// The words of the payout queue's and held payments' pages, filters and
// sorts (issue 32, item 4; docs/adr/0179), in English and Arabic; spread
// into the app's tables (app/messages.ts), so the Arabic one must have
// every key.
export const queueEn = {
  "queue.countCapped": "More than {n} open",
  "held.byDate": "By order date",
  "held.sort": "Order",
  "held.sort.newest": "Newest first",
  "held.sort.oldest": "Oldest first",
  "held.count": "{n} held",
  "held.countCapped": "More than {n} held",
} as const;

export const queueAr: Record<keyof typeof queueEn, string> = {
  "queue.countCapped": "أكثر من {n} مفتوح",
  "held.byDate": "حسب تاريخ الطلب",
  "held.sort": "الترتيب",
  "held.sort.newest": "الأحدث أولًا",
  "held.sort.oldest": "الأقدم أولًا",
  "held.count": "{n} محتجز",
  "held.countCapped": "أكثر من {n} محتجز",
};
