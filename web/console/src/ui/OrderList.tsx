import { Alert, Button, Group, Select, Stack, Text, TextInput } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useEffect, useMemo, useState } from "react";
import { refusalOf } from "../app/action";
import { TIME_ZONE, useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { useSession } from "../app/session";
import { ORDER_STATUSES } from "../store/orderStatus";
import { Loading } from "./Loading";

// The order lists of both areas (issue 32): a period (Dubai's days), a
// status, a sort, numbered pages over the server's keyset cursors (a stack
// of the cursors walked: previous and next, "page 2 of 7" from the count
// operation, capped at its limit), the totals of the page shown, and the
// same orders as CSV from the gateway's route, fetched with the session's
// token. Each page is a live query: new orders and moves show by themselves.

export type ListedOrder = FunctionReturnType<typeof api.stores.orders.listStoreOrders>["page"][number];
export const SORTS = ["newest", "oldest", "total_desc", "total_asc"] as const;
export type Sort = (typeof SORTS)[number];
export const ORDERS_PAGE = 25;

const DUBAI_OFFSET = "+04:00"; // the UAE keeps no daylight saving time
const dayFormat = new Intl.DateTimeFormat("en-CA", { timeZone: TIME_ZONE, year: "numeric", month: "2-digit", day: "2-digit" });
export const dayAt = (ms: number) => dayFormat.format(new Date(ms));
const startOf = (day: string) => Date.parse(`${day}T00:00:00.000${DUBAI_OFFSET}`);
const endOf = (day: string) => Date.parse(`${day}T23:59:59.999${DUBAI_OFFSET}`);
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A period of Dubai days, either end open ("" ). */
export interface Period {
  from: string;
  to: string;
}

/** The period as the operations take it: epoch ms, both ends inclusive; undefined ends open. */
export function periodArgs(p: Period): { from?: number; to?: number } {
  return { from: DAY.test(p.from) ? startOf(p.from) : undefined, to: DAY.test(p.to) ? endOf(p.to) : undefined };
}

function presets(now: number): Record<string, Period> {
  const today = dayAt(now);
  const [y, m] = today.split("-").map(Number);
  const iso = (d: Date) => d.toISOString().slice(0, 10);
  return {
    any: { from: "", to: "" },
    today: { from: today, to: today },
    week: { from: dayAt(now - 6 * 86_400_000), to: today },
    month: { from: iso(new Date(Date.UTC(y, m - 1, 1))), to: today },
    lastMonth: { from: iso(new Date(Date.UTC(y, m - 2, 1))), to: iso(new Date(Date.UTC(y, m - 1, 0))) },
  };
}

/** Presets and two dates. */
export function PeriodPicker({ value, onChange }: { value: Period; onChange(p: Period): void }) {
  const { t } = useI18n();
  const all = useMemo(() => presets(Date.now()), []);
  return (
    <Stack gap={4}>
      <Group gap="xs" wrap="wrap" role="group" aria-label={t("find.period")}>
        {(["any", "today", "week", "month", "lastMonth"] as const).map((k) => {
          const on = all[k].from === value.from && all[k].to === value.to;
          return (
            <Button key={k} size="compact-sm" variant={on ? "filled" : "default"} aria-pressed={on} onClick={() => onChange(all[k])} data-testid={`period-${k}`}>
              {t(`find.period.${k}` as MessageKey)}
            </Button>
          );
        })}
      </Group>
      <Group gap="xs" wrap="wrap" align="flex-end">
        <TextInput type="date" label={t("find.from")} value={value.from} onChange={(e) => onChange({ ...value, from: e.currentTarget.value })} dir="ltr" w={170} data-testid="period-from" />
        <TextInput type="date" label={t("find.to")} value={value.to} onChange={(e) => onChange({ ...value, to: e.currentTarget.value })} dir="ltr" w={170} data-testid="period-to" />
      </Group>
    </Stack>
  );
}

/** The status filter: any, or one of the order statuses. */
export function StatusPicker({ value, onChange }: { value: string | null; onChange(s: string | null): void }) {
  const { t } = useI18n();
  return (
    <Select
      label={t("find.status")}
      data={[{ value: "", label: t("find.status.any") }, ...ORDER_STATUSES.map((s) => ({ value: s, label: t(`order.status.${s}` as MessageKey) }))]}
      value={value ?? ""}
      onChange={(v) => onChange(v || null)}
      w={200}
      allowDeselect={false}
      data-testid="status-filter"
      comboboxProps={{ withinPortal: false }}
    />
  );
}

/** The sort; the total sorts off where the server cannot serve them (every store's orders). */
export function SortPicker({ value, onChange, totalsOff }: { value: Sort; onChange(s: Sort): void; totalsOff?: boolean }) {
  const { t } = useI18n();
  const label = (s: Sort) =>
    s === "newest" || s === "oldest" ? `${t("find.col.date")} ${s === "newest" ? "↓" : "↑"}` : `${t("find.col.total")} ${s === "total_desc" ? "↓" : "↑"}`;
  return (
    <Select
      label={t("find.sortBy", { column: "" }).trim()}
      data={SORTS.map((s) => ({ value: s, label: label(s), disabled: totalsOff && s.startsWith("total") }))}
      value={value}
      onChange={(v) => v && onChange(v as Sort)}
      allowDeselect={false}
      w={180}
      description={totalsOff ? t("find.totalNeedsStore") : undefined}
      data-testid="sort"
      comboboxProps={{ withinPortal: false }}
    />
  );
}

export type OrderArgs = {
  storeId?: string;
  status?: "pending" | "confirmed" | "preparing" | "out_for_delivery" | "delivered" | "cancelled";
  from?: number;
  to?: number;
  customerId?: string;
  number?: string;
};

/**
 * One page of orders at a time over keyset cursors: the store's
 * (listStoreOrders) or every store's (listOrders), with the count for the
 * page numbers. Changing the filters goes back to the first page.
 */
export function useOrderPages(kind: "store" | "admin", args: OrderArgs, sort: Sort) {
  const key = JSON.stringify([kind, args, sort]);
  const [walk, setWalk] = useState<{ key: string; cursors: (string | null)[] }>({ key, cursors: [null] });
  const cursors = walk.key === key ? walk.cursors : [null];
  useEffect(() => {
    if (walk.key !== key) setWalk({ key, cursors: [null] });
  }, [key, walk.key]);
  const cursor = cursors[cursors.length - 1];
  const paginationOpts = { numItems: ORDERS_PAGE, cursor };
  const storeArgs = kind === "store" && args.storeId ? { ...args, storeId: args.storeId, sort, paginationOpts } : "skip";
  const adminArgs = kind === "admin" ? { ...args, sort, paginationOpts } : "skip";
  const storePage = useQuery(api.stores.orders.listStoreOrders, storeArgs);
  const adminPage = useQuery(api.admins.orders.listOrders, adminArgs);
  const countArgs = { ...args };
  const storeCount = useQuery(api.stores.orders.countStoreOrders, kind === "store" && args.storeId ? { ...countArgs, storeId: args.storeId } : "skip");
  const adminCount = useQuery(api.admins.orders.countOrders, kind === "admin" ? countArgs : "skip");
  const page = kind === "store" ? storePage : adminPage;
  const count = kind === "store" ? storeCount : adminCount;
  return {
    page: page?.page as ListedOrder[] | undefined,
    count,
    index: cursors.length - 1,
    next: page && !page.isDone ? () => setWalk({ key, cursors: [...cursors, page.continueCursor] }) : undefined,
    prev: cursors.length > 1 ? () => setWalk({ key, cursors: cursors.slice(0, -1) }) : undefined,
  };
}

/** Previous, next, and where this page is. */
export function Pager({ index, count, next, prev }: { index: number; count?: { count: number; capped: boolean }; next?: () => void; prev?: () => void }) {
  const { t } = useI18n();
  const pages = count ? Math.max(1, Math.ceil(count.count / ORDERS_PAGE)) : undefined;
  return (
    <Group component="nav" aria-label={t("find.pager")} gap="xs" justify="space-between" wrap="wrap">
      <Text size="sm" data-testid="order-count" data-count={count?.count} data-capped={count?.capped}>
        {count && t(count.capped ? "find.countCapped" : "find.count", { count: count.count })}
        {pages !== undefined && " · "}
        {pages !== undefined && t(count?.capped ? "find.pageCapped" : "find.page", { page: index + 1, pages })}
      </Text>
      <Group gap="xs">
        <Button size="compact-sm" variant="default" disabled={!prev} onClick={prev} data-testid="page-prev">
          {t("find.prev")}
        </Button>
        <Button size="compact-sm" variant="default" disabled={!next} onClick={next} data-testid="page-next">
          {t("find.next")}
        </Button>
      </Group>
    </Group>
  );
}

/** The sums of the page shown. */
export function PageTotals({ orders }: { orders: ListedOrder[] }) {
  const { t, money } = useI18n();
  const sum = (f: (o: ListedOrder) => number | null | undefined) => orders.reduce((s, o) => s + (f(o) ?? 0), 0);
  const total = sum((o) => o.total);
  return (
    <Text size="sm" fw={600} data-testid="page-totals" data-total={total.toFixed(2)}>
      {t("find.pageTotals", {
        n: orders.length,
        total: money(total),
        commission: money(sum((o) => o.platformCommission)),
        earnings: money(sum((o) => o.storeEarnings)),
      })}
    </Text>
  );
}

/** The orders in a list's frame: loading, none, or the rows with the pager and totals. */
export function OrderPages(props: {
  pages: ReturnType<typeof useOrderPages>;
  emptyTestId?: string;
  children(orders: ListedOrder[]): React.ReactNode;
}) {
  const { t } = useI18n();
  const { page } = props.pages;
  if (page === undefined) return <Loading />;
  return (
    <Stack gap="sm">
      <Pager {...props.pages} />
      {page.length === 0 ? <Text data-testid={props.emptyTestId ?? "orders-empty"}>{t("find.none")}</Text> : props.children(page)}
      {page.length > 0 && <PageTotals orders={page} />}
    </Stack>
  );
}

/**
 * The CSV of the orders listed (the period required, at most 366 days): the
 * route takes the bearer token in its Authorization header, so the app
 * fetches it and saves the blob through an object URL.
 */
export function CsvDownload({ path, query, period, name }: { path: string; query: Record<string, string | undefined>; period: Period; name: string }) {
  const { t } = useI18n();
  const { token } = useSession();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { from, to } = periodArgs(period);
  if (from === undefined || to === undefined) {
    return (
      <Text size="xs" c="dimmed" data-testid="csv-need-period">
        {t("find.csv.needPeriod")}
      </Text>
    );
  }
  const download = async () => {
    setPending(true);
    setError(null);
    try {
      const q = new URLSearchParams({ from: String(from), to: String(to) });
      for (const [k, v] of Object.entries(query)) if (v) q.set(k, v);
      const r = await fetch(`${path}?${q}`, { headers: { Authorization: `Bearer ${token}` } });
      if (!r.ok) {
        let message = `${r.status} ${r.statusText}`;
        try {
          const body = await r.json();
          const e = body?.error ?? body;
          if (e?.details?.reason === "too_many_rows") message = t("find.csv.tooMany", { max: e.details.maxRows });
          else if (e?.details?.reason === "range_too_large") message = t("find.csv.tooLong");
          else message = e?.message ?? message;
        } catch {
          // not JSON: the status says it
        }
        throw new Error(message);
      }
      const url = URL.createObjectURL(await r.blob());
      const a = document.createElement("a");
      a.href = url;
      a.download = `${name}-${period.from}-${period.to}.csv`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (e) {
      setError(t("find.csv.failed", { message: refusalOf(e).message }));
    } finally {
      setPending(false);
    }
  };
  return (
    <Stack gap={4} align="flex-start">
      <Button variant="light" onClick={() => void download()} loading={pending} data-testid="orders-csv">
        {t("find.csv")}
      </Button>
      {error && (
        <Alert color="red" role="alert" p="xs">
          {error}
        </Alert>
      )}
    </Stack>
  );
}

/** A query parameter of the page's address (the search's links carry filters). */
export function queryParam(name: string): string | undefined {
  return new URLSearchParams(window.location.search).get(name) ?? undefined;
}
