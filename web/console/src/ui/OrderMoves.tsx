import { Alert, Button, Group, Stack, Text } from "@mantine/core";
import { api } from "@marketplace/api";
import { useActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { nextStatuses, type OrderStatus } from "../store/orderStatus";
import { ConfirmAction } from "./ConfirmAction";
import { numberOf } from "./names";

/** As much of an order as its moves need. */
export interface MovableOrder {
  _id: string;
  number?: string;
  status: string;
  paymentStatus: string;
  total: number;
}

// The store's status moves of an order (the portal's orders and the order
// page): the moves the server allows as buttons; cancelling asks first. An
// order whose payment the platform holds has none (an administrator settles
// it on the held payments).
export function OrderMoves({ order }: { order: MovableOrder }) {
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

function useMove(order: MovableOrder, to: OrderStatus) {
  return useActionForm({
    initial: {},
    mutation: api.stores.orders.updateOrderStatus,
    args: () => ({ orderId: order._id, status: to }),
  });
}

// A step along the delivery path: one click. A refusal (the order moved
// meanwhile, say) shows under the buttons and the order stays as it was.
function Move({ order, to }: { order: MovableOrder; to: OrderStatus }) {
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

function Cancel({ order }: { order: MovableOrder }) {
  const { t, money } = useI18n();
  const form = useMove(order, "cancelled");
  return (
    <ConfirmAction
      label={t("order.move.cancelled")}
      title={t("order.cancel.title", { id: numberOf(order), total: money(order.total) })}
      form={form}
      color="red"
      testId="move-cancelled"
    />
  );
}
