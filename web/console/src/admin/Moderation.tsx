import { Badge, Card, Group, Image, SegmentedControl, SimpleGrid, Stack, Table, Text, Textarea, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useMemo, useState } from "react";
import { useActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { useSession } from "../app/session";
import { ConfirmAction } from "../ui/ConfirmAction";
import { DataTable } from "../ui/DataTable";
import { ChoiceFilter, OptionalPeriodFilter, periodArgs, type OptionalRange } from "../ui/ListFilters";
import { useSort } from "../ui/ListTools";
import { Loading } from "../ui/Loading";
import { Actor } from "../ui/names";
import { Pager, usePager } from "../ui/Pager";
import { UserParagraph, UserText } from "../ui/UserText";

type Flag = FunctionReturnType<typeof api.admins.reviewModeration.listFlags>["page"][number];

const PAGE = 20;

// The moderation queue: pending flags grouped by their review (the review,
// its photos, every reporter's reason), live; dismiss one report or hide the
// review (which resolves its other pending reports), each confirmed. The
// decisions tab lists dismissed and resolved flags, newest decision first.
export default function Moderation() {
  const { t } = useI18n();
  const [tab, setTab] = useState<"pending" | "history">("pending");
  return (
    <Stack>
      <Title order={2}>{t("mod.title")}</Title>
      <Text size="sm">{t("mod.intro")}</Text>
      <SegmentedControl
        w="fit-content"
        value={tab}
        onChange={(v) => setTab(v as "pending" | "history")}
        data={[
          { value: "pending", label: t("mod.pending") },
          { value: "history", label: t("mod.history") },
        ]}
        data-testid="moderation-tab"
      />
      {tab === "pending" ? <Pending /> : <History />}
    </Stack>
  );
}

type FlagStatus = "pending" | "dismissed" | "resolved";

// A page of flags as the server filters and sorts them (a status, a period
// of the days they were raised: any date unless chosen; oldest or newest
// first), with the count for "page 2 of 7".
function useFlagPages(status: FlagStatus | null, range: OptionalRange, sort: "oldest" | "newest", by: "report" | "decision" = "report") {
  const period = periodArgs(range);
  const filters = { ...(status ? { status } : {}), ...(by === "decision" ? { by } : {}), ...(period ?? {}) };
  const pager = usePager(JSON.stringify([filters, sort]));
  const page = useQuery(api.admins.reviewModeration.listFlags, period ? { ...filters, sort, paginationOpts: { numItems: PAGE, cursor: pager.cursor } } : "skip");
  const count = useQuery(api.admins.reviewModeration.countFlags, period ? filters : "skip");
  return { pager, page, count, valid: period !== null };
}

function FlagPager({ pages }: { pages: ReturnType<typeof useFlagPages> }) {
  return <Pager pager={pages.pager} page={pages.page} count={pages.count?.count} capped={pages.count?.capped} pageSize={PAGE} />;
}

// The queue: the pending reports, oldest first (the longest waiting), of a
// period when chosen, a page at a time, grouped by their review.
function Pending() {
  const { t } = useI18n();
  const [range, setRange] = useState<OptionalRange>(null);
  const pages = useFlagPages("pending", range, "oldest");
  const results = pages.page?.page;
  const groups = useMemo(() => {
    const m = new Map<string, Flag[]>();
    for (const f of results ?? []) m.set(f.reviewId, [...(m.get(f.reviewId) ?? []), f]);
    return [...m.values()];
  }, [results]);
  return (
    <Stack data-testid="moderation-queue">
      <OptionalPeriodFilter value={range} onChange={setRange} testId="moderation-range" />
      {!pages.valid ? null : pages.page === undefined ? (
        <Loading />
      ) : (
        <>
          <FlagPager pages={pages} />
          {groups.length === 0 && <Text data-testid="moderation-empty">{t("mod.none")}</Text>}
          {groups.map((flags) => (
            <FlaggedReview key={flags[0].reviewId} flags={flags} />
          ))}
        </>
      )}
    </Stack>
  );
}

function Stars({ n }: { n: number }) {
  const { t } = useI18n();
  return (
    <Text span c="orange.9" fw={700} aria-label={t("mod.rating", { n })} role="img">
      {"★".repeat(n)}
      {"☆".repeat(Math.max(0, 5 - n))}
    </Text>
  );
}

function reasonLabel(t: (k: MessageKey) => string, reason: string) {
  const key = `mod.reason.${reason}` as MessageKey;
  const s = t(key);
  return s === key ? reason : s;
}

function FlaggedReview({ flags }: { flags: Flag[] }) {
  const { t, dateTime } = useI18n();
  const r = flags[0].review;
  return (
    <Card withBorder component="article" data-review={r._id} aria-labelledby={`review-${r._id}`}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap">
          <Group gap="xs">
            <Title order={3} size="h5" id={`review-${r._id}`}>
              <UserText>{r.store.name}</UserText>
            </Title>
            <Stars n={r.rating} />
            {r.isVerifiedPurchase && (
              <Badge variant="light" color="teal">
                {t("mod.verified")}
              </Badge>
            )}
            <Badge variant="light" color={r.isHidden ? "gray" : "blue"}>
              {r.isHidden ? t("mod.hidden") : t("mod.visible")}
            </Badge>
          </Group>
          <Text size="sm">
            {t("mod.by", { name: r.customer.name })} · <bdi>{dateTime(r._creationTime)}</bdi>
          </Text>
        </Group>
        {r.moderation && <Moderated m={r.moderation} />}
        {r.title && (
          <UserParagraph fw={600}>{r.title}</UserParagraph>
        )}
        {r.comment && <UserParagraph>{r.comment}</UserParagraph>}
        {r.photoUrls.length > 0 && (
          <SimpleGrid cols={{ base: 3, md: 6 }} spacing="xs">
            {r.photoUrls.map((u, i) => (
              <a key={u} href={u} target="_blank" rel="noreferrer">
                <Image src={u} alt={t("mod.photo", { n: i + 1 })} h={96} fit="cover" radius="sm" data-testid="review-photo" />
              </a>
            ))}
          </SimpleGrid>
        )}
        <Title order={4} size="h6">
          {t("mod.reports")}
        </Title>
        <Stack gap={6}>
          {flags.map((f) => (
            <Group key={f._id} justify="space-between" wrap="nowrap" data-flag={f._id}>
              <div>
                <Text size="sm">
                  <b>
                    <UserText>{f.flaggedBy.name}</UserText>
                  </b>
                  : {reasonLabel(t, f.reason)} · <bdi>{dateTime(f._creationTime)}</bdi>
                </Text>
                {f.description && <UserParagraph size="sm">{f.description}</UserParagraph>}
              </div>
              <Decide flag={f} action="dismiss" />
            </Group>
          ))}
        </Stack>
        <Group justify="flex-end">
          <Decide flag={flags[0]} action="hide_review" />
        </Group>
      </Stack>
    </Card>
  );
}

type Moderation = NonNullable<Flag["review"]["moderation"]>;

// The review's last visibility decision: hidden or shown again, when, and by
// which administrator (by name where their token stated one, docs/adr/0168).
function Moderated({ m }: { m: Moderation }) {
  const { t, dateTime } = useI18n();
  return (
    <Text size="xs" data-testid="review-moderated" data-visible={String(m.visible)}>
      {t(m.visible ? "names.reviewShownBy" : "names.reviewHiddenBy", { date: dateTime(m.at) })} <Actor inline id={m.adminUserId} name={m.adminName} />
    </Text>
  );
}

function Decide({ flag, action }: { flag: Flag; action: "dismiss" | "hide_review" }) {
  const { t } = useI18n();
  const { identity } = useSession();
  const form = useActionForm({
    initial: { adminNotes: "" },
    mutation: api.admins.reviewModeration.resolveFlag,
    args: (v) => ({ flagId: flag._id, adminUserId: identity.sub, action, adminNotes: v.adminNotes.trim() === "" ? undefined : v.adminNotes.trim() }),
  });
  const hide = action === "hide_review";
  return (
    <ConfirmAction
      label={hide ? t("mod.hide") : t("mod.dismiss")}
      title={hide ? t("mod.hide.title", { store: flag.review.store.name }) : t("mod.dismiss.title", { name: flag.flaggedBy.name })}
      form={form}
      color={hide ? "red" : undefined}
      testId={hide ? "hide-review" : "dismiss-flag"}
    >
      <Textarea label={`${t("field.adminNotes")} (${t("optional")})`} {...form.input("adminNotes")} />
    </ConfirmAction>
  );
}

// The decisions: reports of one decided status (hidden reviews unless
// dismissed ones are chosen; pending reports are the queue's), decided in a
// period when chosen, newest decision first unless the header says
// otherwise, a page at a time.
function History() {
  const { t, dateTime } = useI18n();
  const [status, setStatus] = useState<string | null>("resolved");
  const [range, setRange] = useState<OptionalRange>(null);
  const [sort, onSort] = useSort({ by: "decided", dir: "desc" });
  const pages = useFlagPages((status ?? "resolved") as FlagStatus, range, sort.dir === "asc" ? "oldest" : "newest", "decision");
  const filters = (
    <Group gap="md" align="flex-end" wrap="wrap">
      <ChoiceFilter
        label={t("filter.status")}
        value={status}
        onChange={setStatus}
        options={(["resolved", "dismissed"] as const).map((v) => ({ value: v, label: t(`mod.status.${v}`) }))}
        testId="moderation-status"
      />
      <OptionalPeriodFilter value={range} onChange={setRange} testId="moderation-history-range" />
    </Group>
  );
  if (!pages.valid) return filters;
  if (pages.page === undefined) return <Loading />;
  const rows = pages.page.page;
  if (rows.length === 0)
    return (
      <Stack>
        {filters}
        <Text data-testid="moderation-history-empty">{t("mod.noHistory")}</Text>
      </Stack>
    );
  return (
    <Stack>
      {filters}
      <FlagPager pages={pages} />
      <DataTable
        sort={{ fields: { "mod.decidedAt": "decided" }, value: sort, onSort }}
        striped
        verticalSpacing="sm"
        data-testid="moderation-history"
        columns={["mod.decidedAt", "mod.decision", "payouts.store", "mod.reports", "mod.decidedBy", "field.notes"]}
      >
        {rows.map((f) => (
          <Table.Tr key={f._id} data-flag={f._id} data-status={f.status}>
            <Table.Td>{dateTime(f.resolution?.resolvedAt)}</Table.Td>
            <Table.Td>
              <Text size="sm">{f.resolution ? t(`mod.action.${f.resolution.action}` as MessageKey) : f.status}</Text>
              {(f.resolution?.through && f.resolution.through !== "resolveFlag") || f.resolution?.byFlagId ? (
                <Text size="xs">{t("mod.through")}</Text>
              ) : null}
              {/* The review's last visibility decision, when it is not this one (shown again, or hidden later). */}
              {f.review.moderation && !(f.review.moderation.at === f.resolution?.resolvedAt && !f.review.moderation.visible) && <Moderated m={f.review.moderation} />}
            </Table.Td>
            <Table.Td>
              <Text size="sm">
                <UserText>{f.review.store.name}</UserText>
              </Text>
              <Stars n={f.review.rating} />
              <UserParagraph size="xs" lineClamp={2}>
                {f.review.title ?? f.review.comment}
              </UserParagraph>
            </Table.Td>
            <Table.Td>
              <Text size="sm">{t("mod.reportedBy", { name: f.flaggedBy.name, reason: reasonLabel(t, f.reason) })}</Text>
              <Text size="xs">
                {t("mod.flaggedAt")}: {dateTime(f._creationTime)}
              </Text>
            </Table.Td>
            <Table.Td>{f.resolution && <Actor id={f.resolution.adminUserId} name={f.resolution.adminName} />}</Table.Td>
            <Table.Td>{f.resolution?.adminNotes && <UserParagraph size="sm">{f.resolution.adminNotes}</UserParagraph>}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </Stack>
  );
}
