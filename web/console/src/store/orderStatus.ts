// The order status machine of services/customers/orderstate.go (CanMove),
// repeated so the portal offers only the moves the server allows: one step
// along the delivery path, or cancelled from any status before delivered.
// An order whose payment is under review is the platform's to settle: its
// owner gets no moves. deploy/e2e TestPortalOrderMovesMatchTheServer holds
// this table to CanMove for every pair of statuses; the server checks again.
export const ORDER_STATUSES = ["pending", "confirmed", "preparing", "out_for_delivery", "delivered", "cancelled"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const NEXT: Record<OrderStatus, readonly OrderStatus[]> = {
  pending: ["confirmed", "cancelled"],
  confirmed: ["preparing", "cancelled"],
  preparing: ["out_for_delivery", "cancelled"],
  out_for_delivery: ["delivered", "cancelled"],
  delivered: [],
  cancelled: [],
};

export function nextStatuses(status: string, paymentStatus: string): readonly OrderStatus[] {
  if (paymentStatus === "under_review") return [];
  return NEXT[status as OrderStatus] ?? [];
}
