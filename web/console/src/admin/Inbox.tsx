import { Alert, Badge, Button, Card, Group, Stack, Switch, Text, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { usePaginatedQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useState } from "react";
import { useActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { Link } from "../app/router";
import { Loading } from "../ui/Loading";

type Note = FunctionReturnType<typeof api.notifications.inbox.list>["page"][number];

// What each admin notice asks for, and the screen where it is done.
const screenOf: Record<string, { path: string; label: MessageKey }> = {
  payment_review: { path: "/admin/held-payments", label: "nav.held" },
  review_flagged: { path: "/admin/moderation", label: "nav.moderation" },
  payout_requested: { path: "/admin/payouts", label: "nav.payouts" },
};

// The administrators' inbox (the admin inbox and the caller's own notices),
// newest first, live: high priority marked, each notice linked to the
// screen that acts on it, marked read in place.
export default function Inbox() {
  const { t } = useI18n();
  const [unreadOnly, setUnreadOnly] = useState(false);
  const { results, status, loadMore } = usePaginatedQuery(api.notifications.inbox.list, { unreadOnly }, { initialNumItems: 20 });
  return (
    <Stack>
      <Title order={2}>{t("inbox.title")}</Title>
      <Text size="sm">{t("inbox.intro")}</Text>
      <Switch label={t("notifications.unreadOnly")} checked={unreadOnly} onChange={(e) => setUnreadOnly(e.currentTarget.checked)} data-testid="unread-only" />
      {status === "LoadingFirstPage" ? (
        <Loading />
      ) : results.length === 0 ? (
        <Text data-testid="inbox-empty">{t("notifications.none")}</Text>
      ) : (
        <Stack data-testid="inbox">
          {results.map((n) => (
            <Notice key={n._id} note={n} />
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

// The server writes a notice's title and body in English. In Arabic the
// title is its type's (for the types the admin inbox receives); the body
// stays the server's words, marked as English so it reads left to right.
const titled = new Set(Object.keys(screenOf));

function Notice({ note: n }: { note: Note }) {
  const { t, dateTime, lang } = useI18n();
  const title = lang === "ar" && titled.has(n.type) ? t(`inbox.type.${n.type}` as MessageKey) : n.title;
  const serverLang = lang === "ar" ? { lang: "en", dir: "ltr" as const } : {};
  const form = useActionForm({ initial: {}, mutation: api.notifications.inbox.markRead, args: () => ({ notificationId: n._id }) });
  const target = screenOf[n.type];
  return (
    <Card withBorder component="article" data-notification={n._id} data-type={n.type} data-read={n.read} aria-labelledby={`note-${n._id}`}>
      <Stack gap={4}>
        <Group justify="space-between" wrap="wrap">
          <Group gap="sm">
            <Text fw={n.read ? 500 : 700} id={`note-${n._id}`} {...(title === n.title ? serverLang : {})}>
              {title}
            </Text>
            {n.priority === "high" && (
              <Badge color="red" variant="light" data-testid="high-priority">
                {t("inbox.high")}
              </Badge>
            )}
            <Badge variant="light" color={n.read ? "gray" : "blue"}>
              {n.read ? t("notifications.read") : t("notifications.unread")}
            </Badge>
          </Group>
          <Text size="sm">{dateTime(n.eventTime || n._creationTime)}</Text>
        </Group>
        <Text size="sm" {...serverLang}>
          {n.body}
        </Text>
        <Group gap="xs">
          {target && (
            <Button component={Link} to={target.path} size="xs" variant="light" data-testid="open-screen">
              {t("inbox.open", { screen: t(target.label) })}
            </Button>
          )}
          {!n.read && (
            <Button size="xs" variant="default" onClick={() => void form.submit()} loading={form.pending} data-testid="mark-read">
              {t("notifications.markRead")}
            </Button>
          )}
        </Group>
        {form.formError && (
          <Alert color="red" role="alert" p="xs">
            {form.formError.message}
          </Alert>
        )}
      </Stack>
    </Card>
  );
}
