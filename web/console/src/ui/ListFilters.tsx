import { Checkbox, SegmentedControl, Select, Stack } from "@mantine/core";
import { type ReactNode, useRef } from "react";
import { periodOf, presetRange, type DayRange } from "../app/days";
import { useI18n } from "../app/i18n";
import { DateRangeFilter } from "./ListTools";

// Filters of the lists whose period is optional (the inboxes, the store's
// reviews, moderation, the commission history): "Any date" or a period of
// Dubai days (DateRangeFilter), and newest or oldest first. The server
// filters (from/to, inclusive epoch ms, at most 366 days): never one page in
// the browser.

/** A list's period: null for any date. */
export type OptionalRange = DayRange | null;

/**
 * The server's from/to for a period: {} for any date, null while the custom
 * days are not a period (the list is not asked then).
 */
export function periodArgs(range: OptionalRange): { from?: number; to?: number } | null {
  if (range === null) return {};
  return periodOf(range);
}

/**
 * "Any date", or (unticked) the period's presets and custom days. With byDate
 * the checkbox asks the other way round, as the held payments and the payout
 * queue do: "By order date" (its label and test id), ticked for a period;
 * unticking keeps the period for the next tick. hint is shown under the days
 * while a period is chosen.
 */
export function OptionalPeriodFilter({
  value,
  onChange,
  testId = "range",
  byDate,
  hint,
}: {
  value: OptionalRange;
  onChange(r: OptionalRange): void;
  testId?: string;
  byDate?: { label: string; testId: string };
  hint?: ReactNode;
}) {
  const { t } = useI18n();
  // The range a "by date" box brings back when ticked again: the one it
  // held when it was unticked (kept in the handler, not during render).
  const last = useRef<DayRange | null>(null);
  const check = byDate ? (
    <Checkbox
      label={byDate.label}
      checked={value !== null}
      onChange={(e) => {
        if (e.currentTarget.checked) return onChange(last.current ?? presetRange("thisMonth", Date.now()));
        last.current = value;
        onChange(null);
      }}
      data-testid={byDate.testId}
    />
  ) : (
    <Checkbox
      label={t("lists.anyDate")}
      checked={value === null}
      onChange={(e) => onChange(e.currentTarget.checked ? null : presetRange("thisMonth", Date.now()))}
      data-testid={`${testId}-any`}
    />
  );
  return (
    <Stack gap={6} style={{ minWidth: 0, maxWidth: "100%" }}>
      {check}
      {value !== null && <DateRangeFilter value={value} onChange={onChange} testId={testId} />}
      {value !== null && hint}
    </Stack>
  );
}

export type DateOrder = "newest" | "oldest";

/** Newest or oldest first, for lists of cards (tables sort from their headers). */
export function DateOrderControl({ value, onChange, testId = "date-order" }: { value: DateOrder; onChange(v: DateOrder): void; testId?: string }) {
  const { t } = useI18n();
  return (
    <SegmentedControl
      aria-label={t("lists.sort")}
      value={value}
      onChange={(v) => onChange(v as DateOrder)}
      data={[
        { value: "newest", label: t("lists.newest") },
        { value: "oldest", label: t("lists.oldest") },
      ]}
      data-testid={testId}
      style={{ maxWidth: "100%" }}
    />
  );
}

/** One of options, or all of them (null), labelled. */
// ChoiceFilter: one of options, or (with all) none of them.
export function ChoiceFilter({ label, all, value, onChange, options, testId }: { label: string; all?: string; value: string | null; onChange(v: string | null): void; options: { value: string; label: string }[]; testId: string }) {
  return (
    <Select
      label={label}
      data={all === undefined ? options : [{ value: "", label: all }, ...options]}
      value={value ?? ""}
      onChange={(v) => onChange(v ? v : null)}
      allowDeselect={false}
      w={{ base: "100%", xs: 220 }}
      data-testid={testId}
    />
  );
}
