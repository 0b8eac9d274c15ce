import { Alert, Badge, Button, Card, Group, Stack, Switch, Text } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useState, type ReactNode } from "react";
import { useActionForm } from "../app/action";
import { useI18n, type I18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { ChoiceFilter, DateOrderControl, OptionalPeriodFilter, periodArgs, type DateOrder, type OptionalRange } from "./ListFilters";
import { Loading } from "./Loading";
import { Pager, usePager } from "./Pager";

const PAGE = 20;
const KINDS = ["orders", "payments", "payouts", "reviews"] as const;

export type Note = FunctionReturnType<typeof api.notifications.inbox.list>["page"][number];

/** What a notification is rendered from (an inbox item, or an order's). */
export interface NoteSource {
  type: string;
  title: string;
  body: string;
  params?: Record<string, string>;
  recipientRole?: string;
}

const moneyFormats = new Map<string, Intl.NumberFormat>();

/** An amount in a currency's major unit, in the language's form. */
function moneyIn(lang: string, amount: string | undefined, currency: string | undefined): string {
  const cur = (currency || "AED").toUpperCase();
  const key = `${lang}/${cur}`;
  let f = moneyFormats.get(key);
  if (!f) {
    try {
      f = new Intl.NumberFormat(lang === "ar" ? "ar-AE-u-nu-latn" : "en-AE", { style: "currency", currency: cur });
    } catch {
      f = new Intl.NumberFormat(lang === "ar" ? "ar-AE-u-nu-latn" : "en-AE", { minimumFractionDigits: 2 });
    }
    moneyFormats.set(key, f);
  }
  return f.format(Number(amount ?? 0));
}

/**
 * A notification's title and body in the viewer's language, from its type
 * and params (docs/adr/0165); null for a notification written before params
 * were kept, or of a type this console does not know: show the server's
 * English then. t() isolates the names, amounts, dates and free text set
 * into the sentence where their direction may differ from it.
 */
export function noteText(n: NoteSource, i18n: I18n): { title: string; body: string } | null {
  const p = n.params;
  if (!p) return null;
  const { t, lang, dateTime } = i18n;
  const store = p.storeName || t("note.theStore");
  const money = (k: string, cur?: string) => moneyIn(lang, p[k], cur ?? p.currency);
  const aed = (k: string) => money(k, "AED");
  const part = (key: MessageKey, text: string | undefined) => (text ? t(key, { text }) : "");
  const status = (s: string | undefined) => {
    const known = `order.status.${s}` as MessageKey;
    const label = s && t(known) !== known ? t(known) : (s ?? "").replaceAll("_", " ");
    return lang === "en" ? label.toLowerCase() : label;
  };
  const at = (k: string) => (p[k] && Number(p[k]) > 0 ? dateTime(Number(p[k])) : "");
  const k = (s: string) => `note.${n.type}.${s}` as MessageKey;
  switch (n.type) {
    case "order_created":
    case "new_order":
      return { title: t(k("title")), body: t(k("body"), { store, total: aed("total") }) };
    case "order_payment_review":
    case "payment_review": {
      const v = p.reviewReason === "cart_empty" ? "empty." : "";
      return { title: t(k(v + "title")), body: t(k(v + "body"), { store, paid: money("paid"), total: aed("total") }) };
    }
    case "order_status":
      return { title: t(k("title"), { status: status(p.status) }), body: t(k("body"), { store, status: status(p.status) }) };
    case "review_invitation":
    case "review_hidden":
    case "review_shown":
      return { title: t(k("title"), { store }), body: t(k("body"), { store }) };
    case "review_response": {
      const title = t(k(p.updated === "true" ? "updated.title" : "title"), { store });
      return { title, body: title + (p.comment ? part("note.part.reason", p.comment) : ".") };
    }
    case "order_refunded":
      if (n.recipientRole === "store_owner")
        return { title: t(k("owner.title")), body: t(k("owner.body"), { amount: money("amount"), refunded: money("refundedAmount") }) };
      return { title: t(k("title"), { amount: money("amount") }), body: t(k(p.whole === "true" ? "whole.body" : "body"), { amount: money("amount") }) };
    case "refund_failed":
      return { title: t(k("title")), body: t(k("body"), { amount: money("amount"), reason: part("note.part.reason", p.failureReason) }) };
    case "dispute_opened": {
      const due = at("dueBy");
      return {
        title: t(k("title")),
        body: t(k("body"), { amount: money("amount"), reason: part("note.part.paren", p.reason?.replaceAll("_", " ")), due: due ? t("note.part.due", { at: due }) : "" }),
      };
    }
    case "payment_failed":
      return { title: t(k("title")), body: t(k("body"), { amount: money("amount"), reason: part("note.part.reason", p.failureMessage) }) };
    case "review_flagged": {
      const flag = `note.flag.${p.reason}` as MessageKey;
      const reason = p.reason && t(flag) !== flag ? t(flag) : (p.reason ?? "");
      return { title: t(k("title")), body: t(k("body"), { reason, description: part("note.part.reason", p.description) }) };
    }
    case "payout_requested":
    case "payout_approved":
    case "payout_rejected":
    case "payout_processing":
    case "payout_completed":
    case "payout_failed":
    case "payout_cancelled": {
      const method = `note.method.${p.method}` as MessageKey;
      const vars = {
        store,
        amount: aed("requestedAmount"),
        net: aed("netAmount"),
        fee: aed("processingFee"),
        reason: part("note.part.reason", p.reason),
        method: p.method && t(method) !== method ? t("note.part.by", { text: t(method) }) : "",
        reference: part("note.part.reference", p.reference),
        by: p.requestedByName || p.requestedBy || "?",
      };
      let body = k("body");
      if (n.type === "payout_failed" && p.balanceRestored !== "true") body = k("kept.body");
      if (n.type === "payout_cancelled" && n.recipientRole === "admin") body = k("admin.body");
      return { title: t(k("title")), body: t(body, vars) };
    }
    case "wallet_adjusted": {
      const kind = `note.wallet_adjusted.${p.adjustmentType}` as MessageKey;
      const key = t(kind) !== kind ? kind : "note.wallet_adjusted.other";
      return { title: t(k("title")), body: t(key, { amount: aed("amount"), store, reason: part("note.part.reason", p.reason) }) };
    }
    case "bank_account_changed":
      return {
        title: t(k("title")),
        body: t(k(p.byOwner === "false" ? "admin.body" : "body"), { last4: p.ibanLast4 ?? "", at: at("changedAt") }),
      };
  }
  return null;
}

// The caller's notifications (the administrators' inbox, a store owner's),
// newest first or oldest first, live, filtered by the server: unread only,
// of one kind, of a period (any date unless chosen); numbered pages over the
// server's cursors with "page 2 of 7" from notifications.inbox.count. Each
// is marked read in place and reads in the viewer's language from its type
// and params; one written before params were kept shows the server's
// English, marked so.
export function NotificationList(props: {
  /** The list's test id; the empty list's is `${testId}-empty`. */
  testId: string;
  /** Marks beside the title (high priority, say). */
  badge?(n: Note): ReactNode;
  /** Actions beside "Mark read" (a link to the screen that acts on it, say). */
  action?(n: Note): ReactNode;
}) {
  const { t } = useI18n();
  const [unreadOnly, setUnreadOnly] = useState(false);
  const [kind, setKind] = useState<string | null>(null);
  const [range, setRange] = useState<OptionalRange>(null);
  const [order, setOrder] = useState<DateOrder>("newest");
  const period = periodArgs(range);
  const filters = {
    ...(unreadOnly ? { read: "unread" as const } : {}),
    ...(kind ? { kind: kind as (typeof KINDS)[number] } : {}),
    ...(period ?? {}),
  };
  const pager = usePager(JSON.stringify([filters, order]));
  const page = useQuery(api.notifications.inbox.list, period ? { ...filters, sort: order, paginationOpts: { numItems: PAGE, cursor: pager.cursor } } : "skip");
  const count = useQuery(api.notifications.inbox.count, period ? filters : "skip");
  const filtered = unreadOnly || kind !== null || range !== null;
  return (
    <>
      <Group gap="md" align="flex-end" wrap="wrap">
        <Switch label={t("notifications.unreadOnly")} checked={unreadOnly} onChange={(e) => setUnreadOnly(e.currentTarget.checked)} data-testid="unread-only" />
        <ChoiceFilter
          label={t("lists.kind")}
          all={t("lists.kind.all")}
          value={kind}
          onChange={setKind}
          options={KINDS.map((k) => ({ value: k, label: t(`lists.kind.${k}` as MessageKey) }))}
          testId="kind-filter"
        />
        <DateOrderControl value={order} onChange={setOrder} />
      </Group>
      <OptionalPeriodFilter value={range} onChange={setRange} />
      {period === null ? null : page === undefined ? (
        <Loading />
      ) : (
        <Stack gap="sm">
          <Pager pager={pager} page={page} count={count?.count} capped={count?.capped} pageSize={PAGE} />
          {page.page.length === 0 ? (
            <Text data-testid={`${props.testId}-empty`}>{filtered ? t("lists.none") : t("notifications.none")}</Text>
          ) : (
            <Stack data-testid={props.testId} data-order={order}>
              {page.page.map((n) => (
                <NoteCard key={n._id} note={n} badge={props.badge?.(n)} action={props.action?.(n)} />
              ))}
            </Stack>
          )}
        </Stack>
      )}
    </>
  );
}

/** The server's English, for a notification without params. */
export const serverText = { lang: "en", dir: "auto" } as const;

function NoteCard({ note: n, badge, action }: { note: Note; badge: ReactNode; action: ReactNode }) {
  const i18n = useI18n();
  const { t, dateTime } = i18n;
  const text = noteText(n, i18n);
  const marks = text ? {} : serverText;
  const form = useActionForm({ initial: {}, mutation: api.notifications.inbox.markRead, args: () => ({ notificationId: n._id }) });
  return (
    <Card
      withBorder
      component="article"
      data-notification={n._id}
      data-type={n.type}
      data-read={n.read}
      data-rendered={text ? "params" : "server"}
      aria-labelledby={`note-${n._id}`}
    >
      <Stack gap={4}>
        <Group justify="space-between" wrap="wrap">
          <Group gap="sm">
            <Text fw={n.read ? 500 : 700} id={`note-${n._id}`} {...marks} data-testid="note-title">
              {text?.title ?? n.title}
            </Text>
            {badge}
            <Badge variant="light" color={n.read ? "gray" : "blue"}>
              {n.read ? t("notifications.read") : t("notifications.unread")}
            </Badge>
          </Group>
          <Text size="sm">{dateTime(n.eventTime || n._creationTime)}</Text>
        </Group>
        <Text size="sm" {...marks} data-testid="note-body">
          {text?.body ?? n.body}
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
