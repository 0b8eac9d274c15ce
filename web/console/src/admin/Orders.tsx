import { Alert, Button, Group, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { usePaginatedQuery, useQuery } from "convex/react";
import { useState, type FormEvent } from "react";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { OrderStatusBadge } from "../store/OrderStatusBadge";
import { DataTable } from "../ui/DataTable";
import { Loading } from "../ui/Loading";
import { PAGE, PagedList } from "../ui/PagedList";
import { orderNumber, RefundAction, RefundSummary, type RefundableOrder } from "../ui/Refunds";
import { StorePicker, useAllStores } from "./stores";

// Orders and refunds: a store's orders (stores.orders.listStoreOrders, which
// administrators may read for any store), newest first and live, or one
// order found by its payment intent; each with its refunds, and the refund
// action on any paid or held order (admins.orders.refundOrder: an
// administrator has no refund window).
export default function Orders() {
  const { t } = useI18n();
  const stores = useAllStores();
  const [storeId, setStoreId] = useState<string | null>(null);
  return (
    <Stack>
      <Title order={2}>{t("adminOrders.title")}</Title>
      <Text size="sm">{t("adminOrders.intro")}</Text>
      <FindByIntent />
      <StorePicker stores={stores} value={storeId} onChange={setStoreId} testId="orders-store" />
      {storeId && <StoreOrders storeId={storeId} key={storeId} />}
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

function StoreOrders({ storeId }: { storeId: string }) {
  const { t } = useI18n();
  const pages = usePaginatedQuery(api.stores.orders.listStoreOrders, { storeId }, { initialNumItems: PAGE });
  return (
    <PagedList pages={pages} empty={t("orders.none")} emptyTestId="orders-empty">
      {(results) => <OrderTable orders={results} testId="orders" />}
    </PagedList>
  );
}

const PAYMENTS = new Set(["paid", "under_review", "pending", "refunded"]);

function OrderTable({ orders, testId, showStore }: { orders: RefundableOrder[]; testId: string; showStore?: boolean }) {
  const { t, money, dateTime } = useI18n();
  return (
    <DataTable
      striped
      verticalSpacing="sm"
      data-testid={testId}
      columns={["orders.order", "orders.items", "orders.total", "orders.payment", "orders.status", "orders.refunds"]}
    >
      {orders.map((o) => (
        <Table.Tr key={o._id} data-order={o._id} data-status={o.status} data-refund-status={o.refundStatus ?? "none"}>
          <Table.Td>
            <Text fw={600} title={o._id} dir="ltr">
              {orderNumber(o._id)}
            </Text>
            {showStore && <Text size="sm">{o.storeName}</Text>}
            <Text size="xs">{dateTime(o._creationTime)}</Text>
            <Text size="xs" ff="monospace" dir="ltr">
              {o.paymentIntentId}
            </Text>
          </Table.Td>
          <Table.Td>
            {o.items.map((it) => (
              <Text size="sm" key={it.productId}>
                {it.quantity} × {it.name} <span style={{ whiteSpace: "nowrap" }}>({money(it.lineTotal)})</span>
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
