import { Stack, Title } from "@mantine/core";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { NotificationList } from "../ui/NotificationList";

// The types an owner receives, whose titles read in Arabic.
const TYPES = new Set(["new_order", "payout_approved", "payout_rejected", "payout_processing", "payout_completed", "payout_failed", "wallet_adjusted", "order_refunded"]);

// The owner's notifications (new orders, payouts, reviews), newest first,
// live; each marked read in place.
export default function Notifications() {
  const { t } = useI18n();
  return (
    <Stack>
      <Title order={2}>{t("notifications.title")}</Title>
      <NotificationList testId="notifications" typeTitle={(type) => (TYPES.has(type) ? (`notifications.type.${type}` as MessageKey) : null)} />
    </Stack>
  );
}
