import { Alert, Badge, Button, Card, Group, Stack, Switch, Text } from "@mantine/core";
import { api } from "@marketplace/api";
import { usePaginatedQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useState, type ReactNode } from "react";
import { useActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { PAGE, PagedList } from "./PagedList";

export type Note = FunctionReturnType<typeof api.notifications.inbox.list>["page"][number];

// The caller's notifications (the administrators' inbox, a store owner's),
// newest first, live, filterable to the unread ones; each marked read in
// place. The server writes a notification's title and body in English: in
// Arabic the title is its type's where the area has words for the type
// (typeTitle); the body stays the server's words, marked as English so that
// it reads left to right.
export function NotificationList(props: {
  /** The list's test id; the empty list's is `${testId}-empty`. */
  testId: string;
  typeTitle(type: string): MessageKey | null;
  /** Marks beside the title (high priority, say). */
  badge?(n: Note): ReactNode;
  /** Actions beside "Mark read" (a link to the screen that acts on it, say). */
  action?(n: Note): ReactNode;
}) {
  const { t } = useI18n();
  const [unreadOnly, setUnreadOnly] = useState(false);
  const pages = usePaginatedQuery(api.notifications.inbox.list, { unreadOnly }, { initialNumItems: PAGE });
  return (
    <>
      <Switch label={t("notifications.unreadOnly")} checked={unreadOnly} onChange={(e) => setUnreadOnly(e.currentTarget.checked)} data-testid="unread-only" />
      <PagedList pages={pages} empty={t("notifications.none")} emptyTestId={`${props.testId}-empty`}>
        {(results) => (
          <Stack data-testid={props.testId}>
            {results.map((n) => (
              <NoteCard key={n._id} note={n} title={props.typeTitle(n.type)} badge={props.badge?.(n)} action={props.action?.(n)} />
            ))}
          </Stack>
        )}
      </PagedList>
    </>
  );
}

function NoteCard({ note: n, title: titleKey, badge, action }: { note: Note; title: MessageKey | null; badge: ReactNode; action: ReactNode }) {
  const { t, dateTime, lang } = useI18n();
  const title = lang === "ar" && titleKey ? t(titleKey) : n.title;
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
            {badge}
            <Badge variant="light" color={n.read ? "gray" : "blue"}>
              {n.read ? t("notifications.read") : t("notifications.unread")}
            </Badge>
          </Group>
          <Text size="sm">{dateTime(n.eventTime || n._creationTime)}</Text>
        </Group>
        <Text size="sm" {...serverLang}>
          {n.body}
        </Text>
        {(action || !n.read) && (
          <Group gap="xs">
            {action}
            {!n.read && (
              <Button size="xs" variant="default" onClick={() => void form.submit()} loading={form.pending} data-testid="mark-read">
                {t("notifications.markRead")}
              </Button>
            )}
          </Group>
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
