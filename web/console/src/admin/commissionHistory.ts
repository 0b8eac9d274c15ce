// The configuration's change history as people read it: each changed field
// by its label ("Default rate", a category by its name, a tier by its label),
// its values in the viewer's form (rates as percentages, amounts in AED,
// dates in their calendar, days and kilometres counted), instead of the
// stored field paths and raw numbers (services/platformconfig/domain/history.go).

import type { MessageKey } from "../app/messages";
import { percentOfRate } from "./commission";

export interface HistoryChange {
  field: string;
  oldValue?: unknown;
  newValue?: unknown;
}

/** What describing needs from the viewer's language and the catalog. */
export interface Describe {
  t(key: MessageKey, params?: Record<string, string | number>): string;
  money(aed: number): string;
  dateTime(ms: number): string;
  /** A category's name in the viewer's language; undefined when the catalog has none by that id. */
  categoryName(id: string): string | undefined;
}

export interface ChangeLine {
  field: string;
  label: string;
  from: string;
  to: string;
}

const RATES = new Set(["defaultCommissionRate"]);
const AMOUNTS = new Set([
  "fixedFeePerOrder",
  "minimumCommission",
  "maximumCommission",
  "walletSettings.minPayoutAmount",
  "walletSettings.maxPayoutAmount",
  "walletSettings.payoutProcessingFee",
  "walletSettings.disputeFee",
]);
const TIERS = new Set(["basic", "premium", "enterprise"]);

/** The label of a stored field path. */
export function fieldLabel(field: string, d: Describe): string {
  const cat = field.match(/^categoryCommissions\.(.+)$/);
  if (cat) return d.t("comm.field.category", { category: d.categoryName(cat[1]) ?? cat[1] });
  const tier = field.match(/^storeTierCommissions\.(.+)$/);
  if (tier) return d.t("comm.field.tier", { tier: TIERS.has(tier[1]) ? d.t(`comm.tier.${tier[1]}` as MessageKey) : tier[1] });
  const key = `comm.field.${field}` as MessageKey;
  const label = d.t(key);
  return label === key ? field : label;
}

const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** A stored value of field as the viewer reads it; "—" for none. */
export function valueText(field: string, v: unknown, d: Describe): string {
  if (v === null || v === undefined) return "—";
  if (typeof v === "object") return entryText(v as Record<string, unknown>, d);
  if (RATES.has(field) && isNum(v)) return `${percentOfRate(v)}%`;
  if (AMOUNTS.has(field) && isNum(v)) return d.money(v);
  if (field === "effectiveDate" && isNum(v)) return d.dateTime(v);
  if (field === "walletSettings.pendingBalanceHoldDays" && isNum(v)) return d.t("comm.value.days", { n: v });
  if (field.startsWith("locationSettings.") && isNum(v)) return d.t("comm.value.km", { n: v });
  if (field === "walletSettings.disputeFeeChargedTo" && (v === "store" || v === "platform")) return d.t(`comm.value.chargedTo.${v}`);
  if (typeof v === "boolean") return d.t(v ? "comm.value.yes" : "comm.value.no");
  return String(v);
}

// A category's or tier's entry: its rate, then the fixed fee and the minimum
// where it sets them.
function entryText(e: Record<string, unknown>, d: Describe): string {
  const parts: string[] = [];
  if (isNum(e.commissionRate)) parts.push(`${percentOfRate(e.commissionRate)}%`);
  if (isNum(e.fixedFee)) parts.push(d.t("comm.value.fixed", { amount: d.money(e.fixedFee) }));
  if (isNum(e.minimumCommission)) parts.push(d.t("comm.value.minimum", { amount: d.money(e.minimumCommission) }));
  return parts.length ? parts.join(", ") : "—";
}

/** Each change of an entry as a line: label, from, to. */
export function describeChanges(changes: HistoryChange[], d: Describe): ChangeLine[] {
  return changes.map((c) => ({ field: c.field, label: fieldLabel(c.field, d), from: valueText(c.field, c.oldValue, d), to: valueText(c.field, c.newValue, d) }));
}

/** An operation's label ("Settings updated"); the operation's name when unknown. */
export function operationLabel(operation: string, d: Describe): string {
  const key = `comm.op.${operation}` as MessageKey;
  const label = d.t(key);
  return label === key ? operation : label;
}
