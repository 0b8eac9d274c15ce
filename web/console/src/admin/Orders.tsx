import { Alert, Button, Group, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import { lazy, Suspense, useState, type FormEvent } from "react";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { usePath } from "../app/router";
import { OrderStatusBadge } from "../store/OrderStatusBadge";
import { DataTable } from "../ui/DataTable";
import { Loading } from "../ui/Loading";
import { OrderNumber, Person, Place } from "../ui/names";
import { periodOf, type DayRange } from "../app/days";
import { DateRangeFilter, StatusFilter, useSort } from "../ui/ListTools";
import { type OrderArgs, type OrderColumn, OrderPages, OrdersCsv, queryParam, setQueryParam, thisMonth, useOrderPages } from "../ui/OrderList";
import { ORDER_STATUSES } from "../store/orderStatus";
import { RefundAction, RefundSummary, type RefundableOrder } from "../ui/Refunds";
import { StorePicker, useAllStores } from "./stores";

const OrderPage = lazy(() => import("../ui/OrderPage"));

// Orders and refunds: every order (admins.orders.listOrders, held ones too),
// a page at a time and live, filtered by period, status, store (and the
// customer a search chose), sorted by date, with the page's totals and the
// same orders as CSV; or one order found by its payment intent. Each row shows its refunds, and the refund
// action on any paid or held order (admins.orders.refundOrder: an
// administrator has no refund window). An order's number opens its page
// (/admin/orders/<id>).
export default function Orders() {
  const path = usePath();
  const id = /^\/admin\/orders\/([^/]+)$/.exec(path)?.[1];
  if (id) {
    return (
      <Suspense fallback={<Loading />}>
        <OrderPage orderId={id} />
      </Suspense>
    );
  }
  return <AllOrders />;
}

function AllOrders() {
  const { t } = useI18n();
  const stores = useAllStores();
  // The filters are kept in the address (?storeId=, ?customerId=,
  // ?status=): a link (the search's) opens the list filtered, and a reload
  // keeps it.
  const [storeId, setStore] = useState<string | null>(() => queryParam("storeId") ?? null);
  const [customerId, setCustomer] = useState<string | undefined>(() => queryParam("customerId"));
  const [status, setStatusOnly] = useState<string | null>(() => ORDER_STATUSES.find((s) => s === queryParam("status")) ?? null);
  const setStoreId = (v: string | null) => {
    setStore(v);
    setQueryParam("storeId", v ?? undefined);
  };
  const setCustomerId = (v: string | undefined) => {
    setCustomer(v);
    setQueryParam("customerId", v);
  };
  const setStatus = (v: string | null) => {
    setStatusOnly(v);
    setQueryParam("status", v ?? undefined);
  };
  const [range, setRange] = useState<DayRange>(thisMonth);
  const [chosenSort, onSort] = useSort({ by: "date", dir: "desc" });
  // Orders sort by date only: the server sorts by total only a store's
  // orders with no other filter (sort_with_filter), and this list always
  // has a period.
  const sort = chosenSort.by === "total" ? { by: "date", dir: "desc" as const } : chosenSort;
  const period = periodOf(range);
  const args: OrderArgs = {
    storeId: storeId ?? undefined,
    status: (status ?? undefined) as OrderArgs["status"],
    customerId,
    ...(period ?? {}),
  };
  const pages = useOrderPages("admin", args, sort);
  return (
    <Stack>
      <Title order={2}>{t("adminOrders.title")}</Title>
      <Text size="sm">{t("find.orders.introAdmin")}</Text>
      <FindByIntent />
      <Group align="flex-end" wrap="wrap" gap="md">
        <StorePicker stores={stores} value={storeId} onChange={setStoreId} testId="orders-store" />
        <StatusFilter value={status} onChange={setStatus} options={ORDER_STATUSES.map((s) => ({ value: s, label: t(`order.status.${s}` as MessageKey) }))} />
      </Group>
      <Group align="flex-end" justify="space-between" wrap="wrap" gap="md">
        <DateRangeFilter value={range} onChange={setRange} testId="period" />
        <OrdersCsv path="/api/admin/orders.csv" query={{ status: status ?? undefined, storeId: storeId ?? undefined, customerId }} range={range} period={period} name="orders" />
      </Group>
      {customerId && (
        <Group gap="xs">
          <Text size="sm" data-testid="orders-customer">
            {t("find.customer", { name: "" }).trim()} <Text span ff="monospace" dir="ltr">{customerId}</Text>
          </Text>
          <Button size="compact-xs" variant="subtle" onClick={() => setCustomerId(undefined)}>
            {t("find.customer.clear")}
          </Button>
        </Group>
      )}
      <OrderPages
        pages={pages}
        columns={[{ label: "orders.order", sort: "date" }, { label: "find.col.customer" }, { label: "orders.items" }, { label: "orders.total" }, { label: "orders.payment" }, { label: "orders.status" }, { label: "orders.refunds" }] satisfies OrderColumn[]}
        sort={sort}
        onSort={onSort}
        minWidth={1000}
      >
        {(results) => <OrderRows orders={results} showStore={!storeId} />}
      </OrderPages>
    </Stack>
  );
}

function FindByIntent() {
  const { t } = useI18n();
  const [typed, setTyped] = useState("");
  const [intent, setIntent] = useState<string | null>(null);
  const order = useQuery(api.customers.orders.getOrderByPaymentIntent, intent ? { paymentIntentId: intent } : "skip");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setIntent(typed.trim() || null);
  };
  return (
    <Stack gap="xs">
      <form onSubmit={submit} noValidate>
        <Group align="flex-end">
          <TextInput label={t("adminOrders.intent")} placeholder="pi_…" dir="ltr" value={typed} onChange={(e) => setTyped(e.currentTarget.value)} name="intent" w={320} />
          <Button type="submit" variant="default" data-testid="find-order">
            {t("adminOrders.find")}
          </Button>
        </Group>
      </form>
      {intent &&
        (order === undefined ? (
          <Loading />
        ) : order === null ? (
          <Alert color="yellow" data-testid="order-not-found">
            {t("adminOrders.notFound", { intent })}
          </Alert>
        ) : (
          <OrderTable orders={[order]} testId="found-order" showStore />
        ))}
    </Stack>
  );
}

const PAYMENTS = new Set(["paid", "under_review", "pending", "refunded"]);

const COLUMNS: MessageKey[] = ["orders.order", "find.col.customer", "orders.items", "orders.total", "orders.payment", "orders.status", "orders.refunds"];

function OrderTable({ orders, testId, showStore }: { orders: RefundableOrder[]; testId: string; showStore?: boolean }) {
  return (
    <DataTable minWidth={1000} striped verticalSpacing="sm" data-testid={testId} columns={COLUMNS}>
      <OrderRows orders={orders} showStore={showStore} />
    </DataTable>
  );
}

function OrderRows({ orders, showStore }: { orders: RefundableOrder[]; showStore?: boolean }) {
  const { t, money, number, dateTime } = useI18n();
  return (
    <>
      {orders.map((o) => (
        <Table.Tr key={o._id} data-order={o._id} data-status={o.status} data-refund-status={o.refundStatus ?? "none"}>
          <Table.Td>
            <OrderNumber order={o} />
            {showStore && (
              <Text size="sm">
                <bdi>{o.storeName}</bdi>
              </Text>
            )}
            <Text size="xs">{dateTime(o._creationTime)}</Text>
            <Text size="xs" ff="monospace" dir="ltr">
              {o.paymentIntentId}
            </Text>
          </Table.Td>
          <Table.Td>
            <Person name={o.customerName} id={o.customerId} />
            <Place address={o.deliveryAddress} size="xs" />
          </Table.Td>
          <Table.Td>
            {o.items.map((it) => (
              <Text size="sm" key={it.productId}>
                {number(it.quantity)} × <bdi>{it.name}</bdi> <span style={{ whiteSpace: "nowrap" }}>({money(it.lineTotal)})</span>
              </Text>
            ))}
          </Table.Td>
          <Table.Td style={{ whiteSpace: "nowrap" }}>
            <Text size="sm" fw={600}>
              {money(o.total)}
            </Text>
          </Table.Td>
          <Table.Td>
            <Text size="sm">{PAYMENTS.has(o.paymentStatus) ? t(`payment.${o.paymentStatus}` as MessageKey) : o.paymentStatus}</Text>
          </Table.Td>
          <Table.Td>
            <OrderStatusBadge status={o.status} />
          </Table.Td>
          <Table.Td>
            <Stack gap={6} align="flex-start">
              <RefundSummary order={o} />
              {(o.refundableAmount ?? 0) > 0 && <RefundAction order={o} mutation={api.admins.orders.refundOrder} />}
            </Stack>
          </Table.Td>
        </Table.Tr>
      ))}
    </>
  );
}
