import { Badge } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import { useI18n } from "../app/i18n";

// How many of the caller's notifications are unread (countUnread, live: it
// moves as notifications come and are read), beside the navigation's
// Notifications or Inbox; nothing when none. Counted up to 100 ("100+").
// Hidden from the link's accessible name (which stays the screen's name):
// its title says the count in words.
export function UnreadBadge() {
  const { t, number } = useI18n();
  const c = useQuery(api.notifications.inbox.countUnread, {});
  if (!c || c.count === 0) return null;
  const n = c.more ? `${number(c.count)}+` : number(c.count);
  return (
    <Badge size="sm" circle={n.length < 3} variant="filled" color="red" data-testid="unread-count" data-count={c.count} aria-hidden="true" title={t("nav.unread", { n })}>
      {n}
    </Badge>
  );
}
