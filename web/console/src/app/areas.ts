import type { ComponentType } from "react";
import { UnreadBadge } from "../ui/UnreadBadge";
import type { MessageKey } from "./messages";

// The screens of each area. A new screen is one entry here and one
// component: the navigation, the route, lazy loading and the error boundary
// come from the shell.
export interface Screen {
  /** The path under the area: /admin/<path>. */
  path: string;
  label: MessageKey;
  load(): Promise<{ default: ComponentType }>;
  /** Shown beside the label in the navigation (an unread count, say). */
  badge?: ComponentType;
}

export type AreaName = "admin" | "store";

export const screens: Record<AreaName, Screen[]> = {
  admin: [
    { path: "payouts", label: "nav.payouts", load: () => import("../admin/PayoutQueue") },
    { path: "all-payouts", label: "nav.allPayouts", load: () => import("../admin/Payouts") },
    { path: "payout-stats", label: "nav.payoutStats", load: () => import("../admin/PayoutStats") },
    { path: "moderation", label: "nav.moderation", load: () => import("../admin/Moderation") },
    { path: "held-payments", label: "nav.held", load: () => import("../admin/HeldPayments") },
    { path: "orders", label: "nav.adminOrders", load: () => import("../admin/Orders") },
    { path: "search", label: "nav.search", load: () => import("../admin/Search") },
    { path: "disputes", label: "nav.disputes", load: () => import("../admin/Disputes") },
    { path: "wallets", label: "nav.wallets", load: () => import("../admin/Wallets") },
    { path: "commission", label: "nav.commission", load: () => import("../admin/Commission") },
    { path: "catalog", label: "nav.catalog", load: () => import("../admin/Catalog") },
    { path: "notifications", label: "nav.inbox", load: () => import("../admin/Inbox"), badge: UnreadBadge },
  ],
  store: [
    { path: "dashboard", label: "nav.dashboard", load: () => import("../store/Dashboard") },
    { path: "wallet", label: "nav.wallet", load: () => import("../store/Wallet") },
    { path: "orders", label: "nav.orders", load: () => import("../store/Orders") },
    { path: "statement", label: "nav.statement", load: () => import("../store/Statement") },
    { path: "disputes", label: "nav.disputes", load: () => import("../store/Disputes") },
    { path: "reviews", label: "nav.reviews", load: () => import("../store/Reviews") },
    { path: "products", label: "nav.products", load: () => import("../store/Products") },
    { path: "notifications", label: "nav.notifications", load: () => import("../store/Notifications"), badge: UnreadBadge },
  ],
};

export function areaOf(pathname: string): AreaName | null {
  if (pathname === "/admin" || pathname.startsWith("/admin/")) return "admin";
  if (pathname === "/store" || pathname.startsWith("/store/")) return "store";
  return null;
}
