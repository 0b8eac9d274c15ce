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
import {
  CsvDownload,
  type OrderArgs,
  OrderPages,
  type Period,
  PeriodPicker,
  periodArgs,
  queryParam,
  type Sort,
  SortPicker,
  StatusPicker,
  useOrderPages,
} from "../ui/OrderList";
import { RefundAction, RefundSummary, type RefundableOrder } from "../ui/Refunds";
import { StorePicker, useAllStores } from "./stores";

const OrderPage = lazy(() => import("../ui/OrderPage"));

// Orders and refunds: every order (admins.orders.listOrders, held ones too),
// a page at a time and live, filtered by period, status, store (and the
// customer a search chose), sorted by date (by total once a store is
// chosen), with the page's totals and the same orders as CSV; or one order
// found by its payment intent. Each row shows its refunds, and the refund
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
  const [storeId, setStoreId] = useState<string | null>(() => queryParam("storeId") ?? null);
  const [customerId, setCustomerId] = useState<string | undefined>(() => queryParam("customerId"));
  const [status, setStatus] = useState<string | null>(null);
  const [period, setPeriod] = useState<Period>({ from: "", to: "" });
  const [sort, setSort] = useState<Sort>("newest");
  const totalsOff = !storeId;
  const effectiveSort = totalsOff && sort.startsWith("total") ? "newest" : sort;
  const args: OrderArgs = {
    storeId: storeId ?? undefined,
    status: (status ?? undefined) as OrderArgs["status"],
    customerId,
    ...periodArgs(period),
  };
  const pages = useOrderPages("admin", args, effectiveSort);
  return (
    <Stack>
      <Title order={2}>{t("adminOrders.title")}</Title>
      <Text size="sm">{t("find.orders.introAdmin")}</Text>
      <FindByIntent />
      <Group align="flex-end" wrap="wrap" gap="md">
        <StorePicker stores={stores} value={storeId} onChange={setStoreId} testId="orders-store" />
        <StatusPicker value={status} onChange={setStatus} />
        <SortPicker value={effectiveSort} onChange={setSort} totalsOff={totalsOff} />
      </Group>
      <PeriodPicker value={period} onChange={setPeriod} />
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
      <CsvDownload path="/api/admin/orders.csv" query={{ status: status ?? undefined, storeId: storeId ?? undefined }} period={period} name="orders" />
      <OrderPages pages={pages}>{(results) => <OrderTable orders={results} testId="orders" showStore={!storeId} />}</OrderPages>
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

function OrderTable({ orders, testId, showStore }: { orders: RefundableOrder[]; testId: string; showStore?: boolean }) {
  const { t, money, dateTime } = useI18n();
  return (
    <DataTable
      minWidth={1000}
      striped
      verticalSpacing="sm"
      data-testid={testId}
      columns={["orders.order", "find.col.customer", "orders.items", "orders.total", "orders.payment", "orders.status", "orders.refunds"]}
    >
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
                {it.quantity} × <bdi>{it.name}</bdi> <span style={{ whiteSpace: "nowrap" }}>({money(it.lineTotal)})</span>
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
    </DataTable>
  );
}
