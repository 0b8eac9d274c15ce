import { Stack, Text } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import type { ReactNode } from "react";
import { presetRange, type DayRange } from "../app/days";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { DataTable } from "./DataTable";
import { CsvButton, PageTotals, type Sort } from "./ListTools";
import { Loading } from "./Loading";
import { Pager, usePager } from "./Pager";

// The order lists of both areas (issue 32), composed of the list tools
// (src/ui/ListTools.tsx, Pager.tsx): a period of Dubai days, a status, a
// sort by date or total from the headers, numbered pages over the server's
// keyset cursors with the count operations' "page 2 of 7" (capped at their
// limit), the totals of the page shown, and the same orders as CSV from the
// gateway's route. Each page is a live query: new orders and moves show by
// themselves.

export type ListedOrder = FunctionReturnType<typeof api.stores.orders.listStoreOrders>["page"][number];
export const ORDERS_PAGE = 25;

/** The server's sort for a header sort (date or total). */
export function orderSort(s: Sort): "newest" | "oldest" | "total_desc" | "total_asc" {
  if (s.by === "total") return s.dir === "asc" ? "total_asc" : "total_desc";
  return s.dir === "asc" ? "oldest" : "newest";
}

export type OrderArgs = {
  storeId?: string;
  status?: "pending" | "confirmed" | "preparing" | "out_for_delivery" | "delivered" | "cancelled";
  from?: number;
  to?: number;
  customerId?: string;
};

/**
 * One page of orders at a time: the store's (listStoreOrders) or every
 * store's (listOrders), with the count for the page numbers. Other filters
 * or another sort start again at page 1.
 */
export function useOrderPages(kind: "store" | "admin", args: OrderArgs, sort: Sort) {
  const serverSort = orderSort(sort);
  const pager = usePager(JSON.stringify([kind, args, serverSort]));
  const paginationOpts = { numItems: ORDERS_PAGE, cursor: pager.cursor };
  const storePage = useQuery(api.stores.orders.listStoreOrders, kind === "store" && args.storeId ? { ...args, storeId: args.storeId, sort: serverSort, paginationOpts } : "skip");
  const adminPage = useQuery(api.admins.orders.listOrders, kind === "admin" ? { ...args, sort: serverSort, paginationOpts } : "skip");
  const storeCount = useQuery(api.stores.orders.countStoreOrders, kind === "store" && args.storeId ? { ...args, storeId: args.storeId } : "skip");
  const adminCount = useQuery(api.admins.orders.countOrders, kind === "admin" ? args : "skip");
  return { pager, page: kind === "store" ? storePage : adminPage, count: kind === "store" ? storeCount : adminCount };
}

/** A column of an order table: its heading, and the sort its header sets (date or total). */
export interface OrderColumn {
  label: MessageKey;
  sort?: "date" | "total";
}

/**
 * The orders in their frame: loading, none, or the table (sortable headers
 * with aria-sort) between the pager and the page's totals.
 */
export function OrderPages(props: {
  pages: ReturnType<typeof useOrderPages>;
  columns: OrderColumn[];
  sort: Sort;
  onSort(by: string): void;
  /** Ignored: the table becomes cards on phones (DataTable). */
  minWidth?: number;
  children(orders: ListedOrder[]): ReactNode;
}) {
  const { t, money } = useI18n();
  const { pager, page, count } = props.pages;
  if (page === undefined) return <Loading />;
  const orders = page.page as ListedOrder[];
  const sum = (f: (o: ListedOrder) => number | null | undefined) => orders.reduce((s, o) => s + (f(o) ?? 0), 0);
  return (
    <Stack gap="sm">
      <Pager pager={pager} page={page} count={count?.count} capped={count?.capped} pageSize={ORDERS_PAGE} />
      {orders.length === 0 ? (
        <Text data-testid="orders-empty">{t("find.none")}</Text>
      ) : (
        <DataTable
          striped
          verticalSpacing="sm"
          data-testid="orders"
          columns={props.columns.map((c) => c.label)}
          sort={{ fields: Object.fromEntries(props.columns.filter((c) => c.sort).map((c) => [c.label, c.sort!])), value: props.sort, onSort: props.onSort }}
        >
          {props.children(orders)}
        </DataTable>
      )}
      {orders.length > 0 && (
        <PageTotals
          rows={orders.length}
          figures={[
            { label: t("find.col.total"), value: money(sum((o) => o.total)), key: "total" },
            { label: t("find.col.commission"), value: money(sum((o) => o.platformCommission)), key: "commission" },
            { label: t("find.col.earnings"), value: money(sum((o) => o.storeEarnings)), key: "earnings" },
          ]}
        />
      )}
    </Stack>
  );
}

/** The CSV of the orders listed: its period is the list's; a period is needed (at most 366 days). */
export function OrdersCsv({ path, query, range, period, name }: { path: string; query: Record<string, string | undefined>; range: DayRange; period: { from: number; to: number } | null; name: string }) {
  const q = new URLSearchParams();
  if (period) {
    q.set("from", String(period.from));
    q.set("to", String(period.to));
  }
  for (const [k, v] of Object.entries(query)) if (v) q.set(k, v);
  return <CsvButton path={`${path}?${q}`} filename={`${name}-${range.from}-${range.to}.csv`} disabled={!period} testId="orders-csv" />;
}

/** The list's first period: this month (in Dubai). */
export const thisMonth = (): DayRange => presetRange("thisMonth", Date.now());

/** A query parameter of the page's address (the search's and the dashboard's links carry filters). */
export function queryParam(name: string): string | undefined {
  return new URLSearchParams(window.location.search).get(name) ?? undefined;
}

/**
 * Keeps a filter in the page's address (undefined: removes it), replacing
 * the history entry: a reload or a copied link shows the same list.
 */
export function setQueryParam(name: string, value: string | undefined) {
  const q = new URLSearchParams(window.location.search);
  if (value) q.set(name, value);
  else q.delete(name);
  const search = q.toString();
  window.history.replaceState(window.history.state, "", window.location.pathname + (search ? `?${search}` : ""));
}
