import { Alert, Button, Group, Input, SegmentedControl, Stack, Table, Text, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { usePaginatedQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useState } from "react";
import { useActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { ConfirmAction } from "../ui/ConfirmAction";
import { DataTable } from "../ui/DataTable";
import { PagedList } from "../ui/PagedList";
import { orderNumber, RefundAction, RefundSummary } from "../ui/Refunds";
import { OrderStatusBadge } from "./OrderStatusBadge";
import { nextStatuses, ORDER_STATUSES, type OrderStatus } from "./orderStatus";
import { useStore } from "./StoreContext";

type Order = FunctionReturnType<typeof api.stores.orders.listStoreOrders>["page"][number];
const FILTERS = ["all", ...ORDER_STATUSES] as const;
const ORDERS_PAGE = 25;
const PAYMENTS = new Set(["paid", "under_review", "pending", "refunded"]);

// A store refunds an order from confirmed on (the server refuses a
// delivered one 14 days after delivery, and says so), never one the
// platform holds for review.
const REFUNDABLE = new Set(["confirmed", "preparing", "out_for_delivery", "delivered"]);

// The store's orders, live (new orders and every move appear by themselves),
// with the moves the server allows as buttons; cancelling asks first.
export default function Orders() {
  const { t } = useI18n();
  const { store } = useStore();
  const [filter, setFilter] = useState<(typeof FILTERS)[number]>("all");
  const pages = usePaginatedQuery(
    api.stores.orders.listStoreOrders,
    { storeId: store._id, status: filter === "all" ? undefined : filter },
    { initialNumItems: ORDERS_PAGE },
  );
  return (
    <Stack>
      <Title order={2}>
        {t("orders.title")}: {store.name}
      </Title>
      <Text size="sm">{t("orders.intro")}</Text>
      <Stack gap={4}>
        <Input.Label id="order-filter-label" component="span">
          {t("orders.filter")}
        </Input.Label>
        <SegmentedControl
          aria-labelledby="order-filter-label"
          value={filter}
          onChange={(v) => setFilter(v as (typeof FILTERS)[number])}
          data={FILTERS.map((s) => ({ value: s, label: s === "all" ? t("orders.all") : t(`order.status.${s}` as MessageKey) }))}
          data-testid="order-filter"
          style={{ flexWrap: "wrap" }}
        />
      </Stack>
      <PagedList pages={pages} empty={t("orders.none")} emptyTestId="orders-empty" pageSize={ORDERS_PAGE}>
        {(results) => (
          <DataTable
            striped
            verticalSpacing="sm"
            data-testid="orders"
            columns={["orders.order", "orders.items", "orders.total", "orders.delivery", "orders.payment", "orders.status", "orders.refunds", "orders.next"]}
          >
            {results.map((o) => (
              <OrderRow key={o._id} order={o} />
            ))}
          </DataTable>
        )}
      </PagedList>
    </Stack>
  );
}

function OrderRow({ order: o }: { order: Order }) {
  const { t, money, dateTime } = useI18n();
  const payment = `payment.${o.paymentStatus}` as MessageKey;
  return (
    <Table.Tr data-order={o._id} data-status={o.status} data-refund-status={o.refundStatus ?? "none"}>
      <Table.Td>
        <Text fw={600} title={o._id} dir="ltr">
          {orderNumber(o._id)}
        </Text>
        <Text size="xs">{dateTime(o._creationTime)}</Text>
      </Table.Td>
      <Table.Td>
        {o.items.map((it) => (
          <Text size="sm" key={it.productId}>
            {it.quantity} × {it.name} <span style={{ whiteSpace: "nowrap" }}>({money(it.lineTotal)})</span>
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
        <Text size="sm">{o.deliveryAddress.fullAddress}</Text>
        <Text size="xs">
          {o.deliveryAddress.area}, {o.deliveryAddress.city}
        </Text>
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
        <Moves order={o} />
      </Table.Td>
    </Table.Tr>
  );
}

function Moves({ order }: { order: Order }) {
  const { t } = useI18n();
  const next = nextStatuses(order.status, order.paymentStatus);
  if (order.paymentStatus === "under_review") {
    return (
      <Text size="xs" maw={220} data-testid="order-held">
        {t("orders.held")}
      </Text>
    );
  }
  if (next.length === 0) return <Text size="sm">{t("orders.final")}</Text>;
  return (
    <Group gap="xs">
      {next.map((s) => (s === "cancelled" ? <Cancel key={s} order={order} /> : <Move key={s} order={order} to={s} />))}
    </Group>
  );
}

function useMove(order: Order, to: OrderStatus) {
  return useActionForm({
    initial: {},
    mutation: api.stores.orders.updateOrderStatus,
    args: () => ({ orderId: order._id, status: to }),
  });
}

// A step along the delivery path: one click. A refusal (the order moved
// meanwhile, say) shows under the buttons and the row stays as it was.
function Move({ order, to }: { order: Order; to: OrderStatus }) {
  const { t } = useI18n();
  const form = useMove(order, to);
  return (
    <Stack gap={4}>
      <Button size="xs" onClick={() => void form.submit()} loading={form.pending} data-testid={`move-${to}`}>
        {t(`order.move.${to}` as MessageKey)}
      </Button>
      {form.formError && (
        <Alert color="red" role="alert" p="xs" maw={260}>
          {form.formError.message}
        </Alert>
      )}
    </Stack>
  );
}

function Cancel({ order }: { order: Order }) {
  const { t, money } = useI18n();
  const form = useMove(order, "cancelled");
  return (
    <ConfirmAction
      label={t("order.move.cancelled")}
      title={t("order.cancel.title", { id: orderNumber(order._id), total: money(order.total) })}
      form={form}
      color="red"
      testId="move-cancelled"
    />
  );
}
