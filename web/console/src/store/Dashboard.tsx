import { Anchor, Badge, Card, Group, SegmentedControl, SimpleGrid, Stack, Table, Text, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { lazy, Suspense, useMemo, useState } from "react";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { Link } from "../app/router";
import { Loading } from "../ui/Loading";
import { Section } from "../ui/Section";
import { UserText } from "../ui/UserText";
import type { Point, RatingPoint } from "./DashboardCharts";
import { useStore } from "./StoreContext";

// Recharts is large: the charts are a chunk of their own, fetched after the
// figures show (as the payout statistics' are).
const Charts = lazy(() => import("./DashboardCharts"));

const DAY_MS = 86_400_000;
const DUBAI_MS = 4 * 3_600_000; // the UAE keeps UTC+4 all year
const STATUSES = ["pending", "confirmed", "preparing", "out_for_delivery", "delivered", "cancelled"] as const;
const RANGES = ["7", "30", "90"] as const;

/** Dubai midnight of the day ms falls in. */
const dayStart = (ms: number) => Math.floor((ms + DUBAI_MS) / DAY_MS) * DAY_MS - DUBAI_MS;
/** Dubai Monday midnight of the week ms falls in (1 January 1970 was a Thursday). */
const weekStart = (ms: number) => dayStart(ms) - (((Math.floor((ms + DUBAI_MS) / DAY_MS) + 3) % 7) * DAY_MS);
/** Dubai midnight of the first of the month ms falls in. */
function monthStart(ms: number): number {
  const d = new Date(ms + DUBAI_MS);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) - DUBAI_MS;
}
/** The Dubai date of a day's start, YYYY-MM-DD (the tests' data-day). */
const isoDay = (ms: number) => new Date(ms + DUBAI_MS).toISOString().slice(0, 10);

// The owner's dashboard, the portal's first screen: today's, this week's
// and this month's sales; a chart of sales and earnings by day or week over
// 7, 30 or 90 days; the period's orders by status (each opening the Orders
// screen on that status), its top products; the rating by week; and what
// the pending balance releases when. Every figure is the server's, live
// (stores.orders.getSalesSummary, stores.reviews.getRatingHistory,
// stores.wallet.getUpcomingReleases), computed on read (docs/adr/0164).
export default function Dashboard() {
  const { t } = useI18n();
  const { store } = useStore();
  // "Now" is fixed for the screen's life: a reload moves to a new day.
  const now = useMemo(() => Date.now(), []);
  const [range, setRange] = useState<(typeof RANGES)[number]>("30");
  const [granularity, setGranularity] = useState<"day" | "week">("day");
  const today = dayStart(now);
  const end = today + DAY_MS - 1;
  const cardsFrom = Math.min(weekStart(now), monthStart(now));
  const cards = useQuery(api.stores.orders.getSalesSummary, { storeId: store._id, from: cardsFrom, to: end, granularity: "day" });
  const from = today - (Number(range) - 1) * DAY_MS;
  const chartFrom = granularity === "week" ? weekStart(from) : from;
  const sales = useQuery(api.stores.orders.getSalesSummary, { storeId: store._id, from: chartFrom, to: end, granularity });
  const ratings = useQuery(api.stores.reviews.getRatingHistory, { storeId: store._id, from: weekStart(today - 89 * DAY_MS), to: end });
  return (
    <Stack>
      <Title order={2}>{t("dash.title")}</Title>
      <Text size="sm">{t("dash.intro")}</Text>
      {cards ? <Cards buckets={cards.buckets} today={today} week={weekStart(now)} month={monthStart(now)} /> : <Loading />}
      <Section
        id="dash-chart-title"
        title={t("dash.chart")}
        action={
          <Group gap="xs">
            <SegmentedControl
              size="xs"
              aria-label={t("dash.range")}
              value={range}
              onChange={(v) => setRange(v as (typeof RANGES)[number])}
              data={RANGES.map((r) => ({ value: r, label: t("dash.days", { n: r }) }))}
              data-testid="dash-range"
            />
            <SegmentedControl
              size="xs"
              aria-label={t("dash.granularity")}
              value={granularity}
              onChange={(v) => setGranularity(v as "day" | "week")}
              data={[
                { value: "day", label: t("dash.byDay") },
                { value: "week", label: t("dash.byWeek") },
              ]}
              data-testid="dash-granularity"
            />
          </Group>
        }
      >
        {sales ? <Sales summary={sales} ratings={ratings?.weeks} week={granularity === "week"} /> : <Loading />}
      </Section>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        {sales ? <ByStatus byStatus={sales.byStatus} /> : <Loading />}
        {sales ? <TopProducts top={sales.topProducts} /> : <Loading />}
      </SimpleGrid>
      <Releases storeId={store._id} />
    </Stack>
  );
}

type Summary = NonNullable<FunctionReturnType<typeof api.stores.orders.getSalesSummary>>;
type Bucket = Summary["buckets"][number];

function sum(bs: Bucket[]) {
  const r = { gross: 0, orders: 0, earnings: 0 };
  for (const b of bs) {
    r.gross += b.gross;
    r.orders += b.orders;
    r.earnings += b.earnings;
  }
  return { gross: Math.round(r.gross * 100) / 100, orders: r.orders, earnings: Math.round(r.earnings * 100) / 100 };
}

function Cards({ buckets, today, week, month }: { buckets: Bucket[]; today: number; week: number; month: number }) {
  const { t, money } = useI18n();
  const cards: [string, MessageKey, ReturnType<typeof sum>][] = [
    ["today", "dash.today", sum(buckets.filter((b) => b.start === today))],
    ["week", "dash.week", sum(buckets.filter((b) => b.start >= week))],
    ["month", "dash.month", sum(buckets.filter((b) => b.start >= month))],
  ];
  return (
    <SimpleGrid cols={{ base: 1, sm: 3 }}>
      {cards.map(([id, label, s]) => (
        <Card withBorder key={id} component="section" aria-labelledby={`card-${id}`} data-testid={`card-${id}`} data-gross={s.gross} data-orders={s.orders} data-earnings={s.earnings}>
          <Text size="sm" id={`card-${id}`} fw={600}>
            {t(label)}
          </Text>
          <Text size="xl" fw={700}>
            <bdi>{money(s.gross)}</bdi>
          </Text>
          <Text size="sm">{t("dash.orders", { n: s.orders })}</Text>
          <Text size="sm">{t("dash.earnings", { amount: money(s.earnings) })}</Text>
        </Card>
      ))}
    </SimpleGrid>
  );
}

function Sales({ summary, ratings, week }: { summary: Summary; ratings?: { weekStart: number; count: number; average: number | null }[]; week: boolean }) {
  const { t, money, lang } = useI18n();
  const label = useMemo(() => new Intl.DateTimeFormat(lang === "ar" ? "ar-AE-u-nu-latn" : "en-AE", { timeZone: "Asia/Dubai", day: "numeric", month: "short" }), [lang]);
  const points: Point[] = summary.buckets.map((b) => ({ day: isoDay(b.start), label: label.format(b.start), gross: b.gross, earnings: b.earnings, orders: b.orders }));
  const rating: RatingPoint[] = (ratings ?? []).map((w) => ({ day: isoDay(w.weekStart), label: label.format(w.weekStart), average: w.average, count: w.count }));
  const tot = summary.totals;
  return (
    <Stack>
      <Text size="sm" data-testid="dash-totals" data-gross={tot.gross} data-orders={tot.orders}>
        {t("dash.totals", {
          gross: money(tot.gross),
          n: tot.orders,
          earnings: money(tot.earnings),
          refunded: money(tot.refunded),
          cancelled: tot.cancelled,
        })}
      </Text>
      <Suspense fallback={<Loading />}>
        <Charts points={points} rating={rating} week={week} />
      </Suspense>
    </Stack>
  );
}

function ByStatus({ byStatus }: { byStatus: Record<string, number> }) {
  const { t } = useI18n();
  return (
    <Section id="dash-status-title" title={t("dash.status")}>
      <Text size="sm">{t("dash.statusIntro")}</Text>
      <Stack gap={4} data-testid="dash-by-status">
        {STATUSES.map((s) => (
          <Group key={s} justify="space-between" data-status={s} data-count={byStatus[s] ?? 0}>
            <Anchor component={Link} to={`/store/orders?status=${s}`}>
              {t(`order.status.${s}` as MessageKey)}
            </Anchor>
            <Badge variant="light" color={s === "cancelled" ? "gray" : "blue"}>
              {byStatus[s] ?? 0}
            </Badge>
          </Group>
        ))}
      </Stack>
    </Section>
  );
}

function TopProducts({ top }: { top: Summary["topProducts"] }) {
  const { t, money } = useI18n();
  return (
    <Section id="dash-top-title" title={t("dash.top")}>
      {top.length === 0 ? (
        <Text>{t("dash.noTop")}</Text>
      ) : (
        <Table data-testid="dash-top">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t("dash.col.product")}</Table.Th>
              <Table.Th>{t("dash.col.quantity")}</Table.Th>
              <Table.Th>{t("dash.col.revenue")}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {top.map((p) => (
              <Table.Tr key={p.productId} data-product={p.productId} data-quantity={p.quantity} data-revenue={p.revenue}>
                <Table.Td>
                  <UserText>{p.name}</UserText>
                </Table.Td>
                <Table.Td>{p.quantity}</Table.Td>
                <Table.Td>
                  <bdi>{money(p.revenue)}</bdi>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Section>
  );
}

function Releases({ storeId }: { storeId: string }) {
  const { t, money, lang } = useI18n();
  const r = useQuery(api.stores.wallet.getUpcomingReleases, { storeId });
  const day = useMemo(() => new Intl.DateTimeFormat(lang === "ar" ? "ar-AE-u-nu-latn" : "en-AE", { timeZone: "Asia/Dubai", dateStyle: "medium" }), [lang]);
  return (
    <Section id="dash-releases-title" title={t("dash.releases")}>
      <Text size="sm">{t("dash.releasesIntro")}</Text>
      {r === undefined ? (
        <Loading />
      ) : !r || r.releases.length === 0 ? (
        <Text data-testid="dash-releases-empty">{t("dash.noReleases")}</Text>
      ) : (
        <>
          <Table data-testid="dash-releases">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t("dash.col.release")}</Table.Th>
                <Table.Th>{t("dash.col.amount")}</Table.Th>
                <Table.Th>{t("dash.col.count")}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {r.releases.map((x) => (
                <Table.Tr key={x.day} data-day={x.day} data-amount={x.amount} data-count={x.count}>
                  <Table.Td>
                    <bdi>{day.format(x.at)}</bdi>
                  </Table.Td>
                  <Table.Td>
                    <bdi>{money(x.amount)}</bdi>
                  </Table.Td>
                  <Table.Td>{x.count}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {r.more && <Text size="sm">{t("dash.releasesMore")}</Text>}
        </>
      )}
    </Section>
  );
}
