import { Group, Input, SegmentedControl, Stack, Table, Text } from "@mantine/core";
import { api } from "@marketplace/api";
import { lazy, Suspense, useState } from "react";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { usePath } from "../app/router";
import { Loading } from "../ui/Loading";
import { ScreenTitle } from "../ui/ScreenTitle";
import { isDay, periodOf, type DayRange } from "../app/days";
import { DateRangeFilter, useSort } from "../ui/ListTools";
import { OrderNumber, Person, Place } from "../ui/names";
import { type ListedOrder, type OrderColumn, OrderPages, OrdersCsv, queryParam, setQueryParam, thisMonth, useOrderPages } from "../ui/OrderList";
import { OrderMoves } from "../ui/OrderMoves";
import { RefundAction, RefundSummary } from "../ui/Refunds";
import { OrderStatusBadge } from "./OrderStatusBadge";
import { ORDER_STATUSES } from "./orderStatus";
import { useStore } from "./StoreContext";

const OrderPage = lazy(() => import("../ui/OrderPage"));

const FILTERS = ["all", ...ORDER_STATUSES] as const;
type Filter = (typeof FILTERS)[number];

/** The status of the address (?status=, the dashboard's links), else all. */
function statusParam(): Filter {
  const s = queryParam("status");
  return FILTERS.find((f) => f === s) ?? "all";
}
/** The days of the address (?from=&to=, the dashboard's links), else this month. */
function rangeParam(): DayRange {
  const from = queryParam("from");
  const to = queryParam("to");
  return from && to && isDay(from) && isDay(to) ? { from, to } : thisMonth();
}
const COLUMNS: OrderColumn[] = [
  { label: "orders.order", sort: "date" },
  { label: "orders.items" },
  // Not sortable: the server sorts by total only without a period or a
  // status (sort_with_filter), and this list always has a period.
  { label: "orders.total" },
  { label: "orders.delivery" },
  { label: "orders.payment" },
  { label: "orders.status" },
  { label: "orders.refunds" },
  { label: "orders.next" },
];
const PAYMENTS = new Set(["paid", "under_review", "pending", "refunded"]);

// A store refunds an order from confirmed on (the server refuses a
// delivered one 14 days after delivery, and says so), never one the
// platform holds for review.
const REFUNDABLE = new Set(["confirmed", "preparing", "out_for_delivery", "delivered"]);

// The store's orders, a page at a time and live (new orders and every move
// appear by themselves), filtered by period and status, sorted by date, with the moves the server allows as buttons (cancelling asks
// first) and the page's totals; the same orders as CSV. An order's number
// opens its page (/store/orders/<id>).
export default function Orders() {
  const path = usePath();
  const id = /^\/store\/orders\/([^/]+)$/.exec(path)?.[1];
  if (id) {
    return (
      <Suspense fallback={<Loading />}>
        <OrderPage orderId={id} />
      </Suspense>
    );
  }
  return <OrderList />;
}

function OrderList() {
  const { t } = useI18n();
  const { store } = useStore();
  const [filter, setFilter] = useState<Filter>(statusParam);
  const choose = (f: Filter) => {
    setFilter(f);
    setQueryParam("status", f === "all" ? undefined : f);
  };
  const [range, setRange] = useState<DayRange>(rangeParam);
  const chooseRange = (r: DayRange) => {
    setRange(r);
    setQueryParam("from", r.from);
    setQueryParam("to", r.to);
  };
  const [sort, onSort] = useSort({ by: "date", dir: "desc" });
  const status = filter === "all" ? undefined : filter;
  const period = periodOf(range);
  const pages = useOrderPages("store", { storeId: store._id, status, ...(period ?? {}) }, sort);
  return (
    <Stack>
      <ScreenTitle screen={t("orders.title")} name={store.name} />
      <Text size="sm">{t("find.orders.introStore")}</Text>
      <Stack gap={4}>
        <Input.Label id="order-filter-label" component="span">
          {t("orders.filter")}
        </Input.Label>
        <SegmentedControl
          aria-labelledby="order-filter-label"
          value={filter}
          onChange={(v) => choose(v as Filter)}
          data={FILTERS.map((s) => ({ value: s, label: s === "all" ? t("orders.all") : t(`order.status.${s}` as MessageKey) }))}
          data-testid="order-filter"
          style={{ flexWrap: "wrap" }}
        />
      </Stack>
      <Group align="flex-end" justify="space-between" wrap="wrap" gap="md">
        <DateRangeFilter value={range} onChange={chooseRange} testId="period" />
        <OrdersCsv path={`/api/stores/${encodeURIComponent(store._id)}/orders.csv`} query={{ status }} range={range} period={period} name="orders" />
      </Group>
      <OrderPages pages={pages} columns={COLUMNS} sort={sort} onSort={onSort} minWidth={1180}>
        {(results) => results.map((o) => <OrderRow key={o._id} order={o} />)}
      </OrderPages>
    </Stack>
  );
}

function OrderRow({ order: o }: { order: ListedOrder }) {
  const { t, money, number, dateTime } = useI18n();
  const payment = `payment.${o.paymentStatus}` as MessageKey;
  return (
    <Table.Tr data-order={o._id} data-status={o.status} data-refund-status={o.refundStatus ?? "none"} data-total={o.total}>
      <Table.Td>
        <OrderNumber order={o} />
        <Text size="xs">{dateTime(o._creationTime)}</Text>
        <Person name={o.customerName} id={o.customerId} size="xs" />
      </Table.Td>
      <Table.Td>
        {o.items.map((it) => (
          <Text size="sm" key={it.productId}>
            {number(it.quantity)} × <bdi>{it.name}</bdi> <span style={{ whiteSpace: "nowrap" }}>({money(it.lineTotal)})</span>
          </Text>
        ))}
      </Table.Td>
      <Table.Td>
        <Text size="sm" fw={600}>
          {money(o.total)}
        </Text>
        {o.storeEarnings != null && (
          <Text size="xs">
            {t("orders.earnings")}: {money(o.storeEarnings)}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Text size="sm" dir="auto">
          {o.deliveryAddress.fullAddress}
        </Text>
        <Place address={o.deliveryAddress} size="xs" />
        <Text size="xs" dir="ltr">
          {o.deliveryAddress.phoneNumber}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{PAYMENTS.has(o.paymentStatus) ? t(payment) : o.paymentStatus}</Text>
      </Table.Td>
      <Table.Td>
        <OrderStatusBadge status={o.status} />
      </Table.Td>
      <Table.Td>
        <Stack gap={6} align="flex-start">
          <RefundSummary order={o} />
          {o.paymentStatus === "paid" && REFUNDABLE.has(o.status) && (o.refundableAmount ?? 0) > 0 && (
            <RefundAction order={o} mutation={api.stores.orders.refundOrder} />
          )}
        </Stack>
      </Table.Td>
      <Table.Td>
        <OrderMoves order={o} />
      </Table.Td>
    </Table.Tr>
  );
}
