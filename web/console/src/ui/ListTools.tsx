import { Alert, Button, Group, Select, SegmentedControl, Stack, Table, Text, TextInput, UnstyledButton } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import { useState, type ReactNode } from "react";
import { refusalOf } from "../app/action";
import { PRESETS, dayAt, periodOf, presetOf, presetRange, type DayRange, type Preset } from "../app/days";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { useSession } from "../app/session";

// The tools every list has (issue 32, item 2), for the screens to compose:
//
// - DateRangeFilter: today, the last 7 days, this month, last month or
//   custom days (Dubai's, src/app/days.ts); periodOf(range) gives the
//   server's inclusive epoch-ms bounds (null while the custom days are not
//   a period of at most 366 days).
// - StatusFilter: one status or all of them.
// - useSort and SortableTh: a header cell that sorts by its column, with
//   aria-sort; DataTable takes them through its `sort` prop.
// - PageTotals: the sums of the rows shown ("This page: 20 rows · AED ...").
// - CsvButton: downloads a CSV route (ADR 0157) with the session's token.
// - Pager (src/ui/Pager.tsx): numbered pages over the keyset cursors.

/** The period of a list: a preset or custom days; onChange gets the days. */
export function DateRangeFilter({ value, onChange, testId = "range" }: { value: DayRange; onChange(r: DayRange): void; testId?: string }) {
  const { t } = useI18n();
  const now = Date.now();
  const [custom, setCustom] = useState(() => presetOf(value, now) === null);
  const mode: Preset | "custom" = custom ? "custom" : (presetOf(value, now) ?? "custom");
  const valid = periodOf(value) !== null;
  // On a phone the five presets do not fit a row: they stack.
  const phone = useMediaQuery("(max-width: 47.99em)") ?? false;
  return (
    <Stack gap={6} data-testid={testId} style={{ minWidth: 0, maxWidth: "100%" }}>
      <SegmentedControl
        orientation={phone ? "vertical" : "horizontal"}
        aria-label={t("range.label")}
        value={mode}
        onChange={(m) => {
          if (m === "custom") return setCustom(true);
          setCustom(false);
          onChange(presetRange(m as Preset, Date.now()));
        }}
        data={[...PRESETS.map((p) => ({ value: p, label: t(`range.${p}` as MessageKey) })), { value: "custom", label: t("range.custom") }]}
        style={{ maxWidth: "100%" }}
      />
      {mode === "custom" && (
        <Group gap="xs" wrap="wrap" align="flex-end">
          <TextInput type="date" dir="ltr" label={t("range.from")} value={value.from} max={dayAt(now)} onChange={(e) => onChange({ ...value, from: e.currentTarget.value })} data-testid={`${testId}-from`} />
          <TextInput type="date" dir="ltr" label={t("range.to")} value={value.to} onChange={(e) => onChange({ ...value, to: e.currentTarget.value })} data-testid={`${testId}-to`} />
        </Group>
      )}
      {!valid && (
        <Text size="sm" c="var(--mantine-color-error)" role="alert">
          {t("range.bad")}
        </Text>
      )}
    </Stack>
  );
}

/** One status of options, or all of them (null). */
export function StatusFilter({ value, onChange, options, testId = "status-filter" }: { value: string | null; onChange(s: string | null): void; options: { value: string; label: string }[]; testId?: string }) {
  const { t } = useI18n();
  return (
    <Select
      label={t("filter.status")}
      data={[{ value: "", label: t("filter.allStatuses") }, ...options]}
      value={value ?? ""}
      onChange={(v) => onChange(v ? v : null)}
      allowDeselect={false}
      w={{ base: "100%", xs: 220 }}
      // Open, the options stay inside the page's landmarks (not a portal at
      // the body's end), with no scroll area: a few statuses need no scroll,
      // and a scrollable box that cannot take focus is an axe violation.
      comboboxProps={{ withinPortal: false }}
      withScrollArea={false}
      data-testid={testId}
    />
  );
}

export type SortDir = "asc" | "desc";
export interface Sort {
  by: string;
  dir: SortDir;
}

/**
 * A list's sort: choosing the column it is sorted by turns its direction
 * round; another column starts in that column's first direction (first,
 * desc unless said: the newest or largest first).
 */
export function useSort(initial: Sort, first: (by: string) => SortDir = () => "desc"): [Sort, (by: string) => void] {
  const [sort, setSort] = useState(initial);
  return [sort, (by) => setSort((s) => (s.by === by ? { by, dir: s.dir === "asc" ? "desc" : "asc" } : { by, dir: first(by) }))];
}

/** A header cell that sorts its list by column; aria-sort says how it is sorted. */
export function SortableTh({ label, column, sort, onSort }: { label: string; column: string; sort: Sort; onSort(by: string): void }) {
  const { t } = useI18n();
  const active = sort.by === column;
  return (
    <Table.Th aria-sort={active ? (sort.dir === "asc" ? "ascending" : "descending") : "none"} data-sort={column}>
      <UnstyledButton onClick={() => onSort(column)} aria-label={t("sort.by", { column: label })} fw={700} fz="sm" className="mk-sort">
        {label}
        <span aria-hidden="true" style={{ marginInlineStart: 4, opacity: active ? 1 : 0.35 }}>
          {active && sort.dir === "asc" ? "▲" : "▼"}
        </span>
      </UnstyledButton>
    </Table.Th>
  );
}

/** The totals of the rows shown: their count, then each figure (label: the figure, formatted). */
export function PageTotals({ rows, figures, testId = "page-totals" }: { rows: number; figures: { label: string; value: string; key?: string }[]; testId?: string }) {
  const { t } = useI18n();
  return (
    <Group gap="md" wrap="wrap" data-testid={testId} data-rows={rows}>
      <Text size="sm" fw={700}>
        {t("totals.page")}:
      </Text>
      <Text size="sm">{t("totals.rows", { n: rows })}</Text>
      {figures.map((f) => (
        <Text size="sm" key={f.key ?? f.label} data-total={f.key}>
          {f.label}: <bdi style={{ fontWeight: 700 }}>{f.value}</bdi>
        </Text>
      ))}
    </Group>
  );
}

/**
 * Downloads the CSV at path (a route of the gateway, with its query) as
 * filename. The route takes the caller's bearer token in the Authorization
 * header, which a link cannot send: fetched, then saved through an object
 * URL. A refusal (the period, the row cap, access) shows its message.
 */
export function CsvButton({ path, filename, disabled, label, testId = "csv-download" }: { path: string; filename: string; disabled?: boolean; label?: ReactNode; testId?: string }) {
  const { t } = useI18n();
  const { token } = useSession();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const download = async () => {
    setPending(true);
    setError(null);
    try {
      const r = await fetch(path, { headers: { Authorization: `Bearer ${token}` } });
      if (!r.ok) {
        let message = `${r.status} ${r.statusText}`;
        try {
          const body = await r.json();
          message = body?.error?.message ?? body?.message ?? message;
        } catch {
          // not JSON: the status says it
        }
        throw new Error(message);
      }
      const url = URL.createObjectURL(await r.blob());
      const a = document.createElement("a");
      a.href = url;
      a.download = filename;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (e) {
      setError(t("csv.failed", { message: refusalOf(e).message }));
    } finally {
      setPending(false);
    }
  };
  return (
    <Stack gap={4} align="flex-end">
      <Button variant="light" onClick={() => void download()} loading={pending} disabled={disabled} data-testid={testId}>
        {label ?? t("csv.download")}
      </Button>
      {error && (
        <Alert color="red" role="alert" p="xs">
          {error}
        </Alert>
      )}
    </Stack>
  );
}
