// The payout queue's ticks (PayoutQueue.tsx): approvePayouts and
// rejectPayouts take at most MAX_BULK payouts (the server's bound,
// services/payouts/bulk.go maxBulkPayouts), so the queue never lets more be
// ticked. Pure, for e2e/rules.test.mjs.

/** The server's bound on one bulk decision. */
export const MAX_BULK = 50;

/** The ids of shown that are ticked, in the order shown (what a bulk decision sends). */
export function ticked(picked: ReadonlySet<string>, shown: readonly string[]): string[] {
  return shown.filter((id) => picked.has(id));
}

/**
 * "Select all" on: the ticked rows stay, and the others shown are ticked in
 * the order shown until max are; off: none shown is ticked. Ticks of rows
 * no longer shown are dropped (only what is shown is sent).
 */
export function pickAll(picked: ReadonlySet<string>, shown: readonly string[], on: boolean, max = MAX_BULK): Set<string> {
  if (!on) return new Set();
  const out = new Set(ticked(picked, shown).slice(0, max));
  for (const id of shown) {
    if (out.size >= max) break;
    out.add(id);
  }
  return out;
}

/** One row ticked or not; ticking past max changes nothing. */
export function pickOne(picked: ReadonlySet<string>, shown: readonly string[], id: string, on: boolean, max = MAX_BULK): Set<string> {
  const out = new Set(ticked(picked, shown));
  if (!on) out.delete(id);
  else if (out.size < max && shown.includes(id)) out.add(id);
  return out;
}

/** Whether "select all" shows as ticked: every row shown, or max of them, is. */
export function allPicked(picked: ReadonlySet<string>, shown: readonly string[], max = MAX_BULK): boolean {
  const n = ticked(picked, shown).length;
  return n > 0 && (n === shown.length || n >= max);
}
