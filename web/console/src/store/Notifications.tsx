import { Stack, Title } from "@mantine/core";
import { useI18n } from "../app/i18n";
import { NotificationList } from "../ui/NotificationList";

// The owner's notifications (new orders, payouts, reviews, a changed bank
// account), newest first, live, in the viewer's language; each marked read
// in place.
export default function Notifications() {
  const { t } = useI18n();
  return (
    <Stack>
      <Title order={2}>{t("notifications.title")}</Title>
      <NotificationList testId="notifications" />
    </Stack>
  );
}
