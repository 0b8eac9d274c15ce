import { Badge, Button, Stack, Text, Title } from "@mantine/core";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { Link } from "../app/router";
import { NotificationList } from "../ui/NotificationList";

// What each admin notice asks for, and the screen where it is done.
const screenOf: Record<string, { path: string; label: MessageKey }> = {
  payment_review: { path: "/admin/held-payments", label: "nav.held" },
  review_flagged: { path: "/admin/moderation", label: "nav.moderation" },
  payout_requested: { path: "/admin/payouts", label: "nav.payouts" },
  refund_failed: { path: "/admin/orders", label: "nav.adminOrders" },
  dispute_opened: { path: "/admin/disputes", label: "nav.disputes" },
};

// The administrators' inbox (the admin inbox and the caller's own notices),
// newest first, live: high priority marked, each notice linked to the
// screen that acts on it, marked read in place, in the viewer's language.
export default function Inbox() {
  const { t } = useI18n();
  return (
    <Stack>
      <Title order={2}>{t("inbox.title")}</Title>
      <Text size="sm">{t("inbox.intro")}</Text>
      <NotificationList
        testId="inbox"
        badge={(n) =>
          n.priority === "high" && (
            <Badge color="red" variant="light" data-testid="high-priority">
              {t("inbox.high")}
            </Badge>
          )
        }
        action={(n) => {
          const target = screenOf[n.type];
          return (
            target && (
              <Button component={Link} to={target.path} size="xs" variant="light" data-testid="open-screen">
                {t("inbox.open", { screen: t(target.label) })}
              </Button>
            )
          );
        }}
      />
    </Stack>
  );
}
