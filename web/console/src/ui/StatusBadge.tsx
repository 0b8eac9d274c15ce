import { Badge } from "@mantine/core";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";

const colors: Record<string, string> = {
  requested: "blue",
  approved: "teal",
  processing: "orange",
  completed: "green",
  held: "orange", // yellow's light badge fails axe's contrast
  rejected: "gray",
  failed: "red",
  cancelled: "gray",
};

export function StatusBadge({ status }: { status: string }) {
  const { t } = useI18n();
  const key = `status.${status}` as MessageKey;
  return (
    <Badge color={colors[status] ?? "gray"} variant="light" data-status={status} style={{ minWidth: "max-content" }}>
      {colors[status] ? t(key) : status}
    </Badge>
  );
}
