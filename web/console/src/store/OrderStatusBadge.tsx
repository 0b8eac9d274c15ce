import { Badge } from "@mantine/core";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { ORDER_STATUSES } from "./orderStatus";

const colors: Record<string, string> = {
  pending: "gray",
  confirmed: "blue",
  preparing: "orange",
  out_for_delivery: "teal",
  delivered: "green",
  cancelled: "red",
};

export function OrderStatusBadge({ status }: { status: string }) {
  const { t } = useI18n();
  const known = (ORDER_STATUSES as readonly string[]).includes(status);
  return (
    <Badge color={colors[status] ?? "gray"} variant="light" data-order-status={status} style={{ minWidth: "max-content" }}>
      {known ? t(`order.status.${status}` as MessageKey) : status}
    </Badge>
  );
}
