import { Alert, Badge, Button, Card, Group, Stack, Switch, Text, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { usePaginatedQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useState } from "react";
import { useActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { Loading } from "../ui/Loading";

type Note = FunctionReturnType<typeof api.notifications.inbox.list>["page"][number];

// The owner's notifications (new orders, payouts, reviews), newest first,
// live; each marked read in place.
export default function Notifications() {
  const { t } = useI18n();
  const [unreadOnly, setUnreadOnly] = useState(false);
  const { results, status, loadMore } = usePaginatedQuery(api.notifications.inbox.list, { unreadOnly }, { initialNumItems: 20 });
  return (
    <Stack>
      <Title order={2}>{t("notifications.title")}</Title>
      <Switch label={t("notifications.unreadOnly")} checked={unreadOnly} onChange={(e) => setUnreadOnly(e.currentTarget.checked)} data-testid="unread-only" />
      {status === "LoadingFirstPage" ? (
        <Loading />
      ) : results.length === 0 ? (
        <Text data-testid="notifications-empty">{t("notifications.none")}</Text>
      ) : (
        <Stack data-testid="notifications">
          {results.map((n) => (
            <NoteCard key={n._id} note={n} />
          ))}
        </Stack>
      )}
      {status === "CanLoadMore" && (
        <Button variant="default" onClick={() => loadMore(20)} w="fit-content">
          {t("history.more")}
        </Button>
      )}
    </Stack>
  );
}

// The server writes a notification's title and body in English. In Arabic
// the title is the type's (for the types an owner receives); the body stays
// the server's words, marked as English so it reads left to right.
const TYPES = new Set(["new_order", "payout_approved", "payout_rejected", "payout_processing", "payout_completed", "payout_failed", "wallet_adjusted"]);

function NoteCard({ note: n }: { note: Note }) {
  const { t, dateTime, lang } = useI18n();
  const title = lang === "ar" && TYPES.has(n.type) ? t(`notifications.type.${n.type}` as MessageKey) : n.title;
  const serverLang = lang === "ar" ? { lang: "en", dir: "ltr" as const } : {};
  const form = useActionForm({ initial: {}, mutation: api.notifications.inbox.markRead, args: () => ({ notificationId: n._id }) });
  return (
    <Card withBorder component="article" data-notification={n._id} data-type={n.type} data-read={n.read} aria-labelledby={`note-${n._id}`}>
      <Stack gap={4}>
        <Group justify="space-between" wrap="wrap">
          <Group gap="sm">
            <Text fw={n.read ? 500 : 700} id={`note-${n._id}`} {...(title === n.title ? serverLang : {})}>
              {title}
            </Text>
            <Badge variant="light" color={n.read ? "gray" : "blue"}>
              {n.read ? t("notifications.read") : t("notifications.unread")}
            </Badge>
          </Group>
          <Text size="sm">{dateTime(n.eventTime || n._creationTime)}</Text>
        </Group>
        <Text size="sm" {...serverLang}>
          {n.body}
        </Text>
        {!n.read && (
          <Button size="xs" variant="default" w="fit-content" onClick={() => void form.submit()} loading={form.pending} data-testid="mark-read">
            {t("notifications.markRead")}
          </Button>
        )}
        {form.formError && (
          <Alert color="red" role="alert" p="xs">
            {form.formError.message}
          </Alert>
        )}
      </Stack>
    </Card>
  );
}
