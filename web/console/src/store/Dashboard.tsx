import { Alert, Anchor, Badge, Button, Card, Group, SegmentedControl, SimpleGrid, Stack, Table, Text, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { lazy, Suspense, useMemo, useState, type ReactNode } from "react";
import { refusalOf } from "../app/action";
import { dayAt } from "../app/days";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { Link } from "../app/router";
import { ErrorBoundary } from "../ui/ErrorBoundary";
import { Loading } from "../ui/Loading";
import { Section } from "../ui/Section";
import { UserText } from "../ui/UserText";
import type { Point, RatingPoint } from "./DashboardCharts";
import { useStore } from "./StoreContext";

// Recharts is large: the charts are a chunk of their own, fetched after the
// figures show (as the payout statistics' are).
const Charts = lazy(() => import("./DashboardCharts"));
const RatingChart = lazy(() => import("./DashboardCharts").then((m) => ({ default: m.RatingChart })));

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
//
// Each part asks its own query inside its own error boundary (ADR 0174): a
// store with more orders in a period than getSalesSummary reads (20,000,
// FAILED_PRECONDITION too_many_orders) sees that part's refusal in words,
// and the parts that can answer (the rating, the releases, a shorter
// period's chart) still show.
export default function Dashboard() {
  const { t } = useI18n();
  const { store } = useStore();
  // "Now" is fixed for the screen's life: a reload moves to a new day.
  const now = useMemo(() => Date.now(), []);
  const [range, setRange] = useState<(typeof RANGES)[number]>("30");
  const [granularity, setGranularity] = useState<"day" | "week">("day");
  const today = dayStart(now);
  const end = today + DAY_MS - 1;
  const from = today - (Number(range) - 1) * DAY_MS;
  const sales: SalesArgs = { storeId: store._id, from: granularity === "week" ? weekStart(from) : from, to: end, granularity };
  const salesKey = JSON.stringify(sales);
  return (
    <Stack>
      <Title order={2}>{t("dash.title")}</Title>
      <Text size="sm">{t("dash.intro")}</Text>
      <Part id="card-title" title={t("dash.cards")} resetKey={store._id}>
        <Cards storeId={store._id} now={now} />
      </Part>
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
              data={RANGES.map((r) => ({ value: r, label: t("dash.days", { n: Number(r) }) }))}
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
        <ErrorBoundary resetKey={salesKey} fallback={(e, retry) => <Refused error={e} retry={retry} part="dash-chart" />}>
          <Sales args={sales} />
        </ErrorBoundary>
      </Section>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Part id="dash-status-title" title={t("dash.status")} resetKey={salesKey}>
          <ByStatus args={sales} />
        </Part>
        <Part id="dash-top-title" title={t("dash.top")} resetKey={salesKey}>
          <TopProducts args={sales} />
        </Part>
      </SimpleGrid>
      <Part id="dash-rating-title" title={t("dash.rating")} resetKey={store._id}>
        <Rating storeId={store._id} today={today} end={end} />
      </Part>
      <Part id="dash-releases-title" title={t("dash.releases")} resetKey={store._id}>
        <Releases storeId={store._id} />
      </Part>
    </Stack>
  );
}

type SalesArgs = { storeId: string; from: number; to: number; granularity: "day" | "week" };

/** A part of the dashboard in its own error boundary: refused, its title and the refusal in words. */
function Part({ id, title, resetKey, children }: { id: string; title: string; resetKey: unknown; children: ReactNode }) {
  return (
    <ErrorBoundary
      resetKey={resetKey}
      fallback={(e, retry) => (
        <Section id={id} title={title}>
          <Refused error={e} retry={retry} part={id} />
        </Section>
      )}
    >
      {children}
    </ErrorBoundary>
  );
}

/** A part's refusal, in words: too many orders in the period says so and what to do. */
function Refused({ error, retry, part }: { error: unknown; retry(): void; part: string }) {
  const { t, number } = useI18n();
  const r = refusalOf(error);
  const max = Number(r.details.maxOrders);
  return (
    <Stack gap="xs" data-testid="dash-refused" data-part={part} data-reason={r.reason ?? r.code}>
      <Alert color="yellow" role="alert">
        {r.reason === "too_many_orders" ? t("dash.tooMany", { max: number(Number.isFinite(max) ? max : 20_000) }) : t("error.generic", { message: r.message })}
      </Alert>
      <Button variant="light" size="xs" onClick={retry} w="fit-content">
        {t("dash.retry")}
      </Button>
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

function Cards({ storeId, now }: { storeId: string; now: number }) {
  const { t, money } = useI18n();
  const today = dayStart(now);
  const week = weekStart(now);
  const month = monthStart(now);
  const summary = useQuery(api.stores.orders.getSalesSummary, { storeId, from: Math.min(week, month), to: today + DAY_MS - 1, granularity: "day" });
  if (!summary) return <Loading />;
  const buckets = summary.buckets;
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

/** The day's or week's label on a chart's axis. */
function useDayLabel() {
  const { lang } = useI18n();
  return useMemo(() => new Intl.DateTimeFormat(lang === "ar" ? "ar-AE-u-nu-latn" : "en-AE", { timeZone: "Asia/Dubai", day: "numeric", month: "short" }), [lang]);
}

function Sales({ args }: { args: SalesArgs }) {
  const { t, money } = useI18n();
  const label = useDayLabel();
  const summary = useQuery(api.stores.orders.getSalesSummary, args);
  if (!summary) return <Loading />;
  const points: Point[] = summary.buckets.map((b) => ({ day: isoDay(b.start), label: label.format(b.start), gross: b.gross, earnings: b.earnings, orders: b.orders }));
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
        <Charts points={points} week={args.granularity === "week"} />
      </Suspense>
    </Stack>
  );
}

function Rating({ storeId, today, end }: { storeId: string; today: number; end: number }) {
  const label = useDayLabel();
  const ratings = useQuery(api.stores.reviews.getRatingHistory, { storeId, from: weekStart(today - 89 * DAY_MS), to: end });
  if (!ratings) return <Loading />;
  const rating: RatingPoint[] = ratings.weeks.map((w) => ({ day: isoDay(w.weekStart), label: label.format(w.weekStart), average: w.average, count: w.count }));
  return (
    <Suspense fallback={<Loading />}>
      <RatingChart rating={rating} />
    </Suspense>
  );
}

// Each status links to the Orders screen filtered to it over the same days
// (so the list counts what the badge says).
function ByStatus({ args }: { args: SalesArgs }) {
  const { t, number } = useI18n();
  const summary = useQuery(api.stores.orders.getSalesSummary, args);
  if (!summary) return <Loading />;
  const byStatus: Record<string, number> = summary.byStatus;
  return (
    <Section id="dash-status-title" title={t("dash.status")}>
      <Text size="sm">{t("dash.statusIntro")}</Text>
      <Stack gap={4} data-testid="dash-by-status">
        {STATUSES.map((s) => (
          <Group key={s} justify="space-between" data-status={s} data-count={byStatus[s] ?? 0}>
            <Anchor component={Link} to={`/store/orders?status=${s}&from=${dayAt(args.from)}&to=${dayAt(args.to)}`}>
              {t(`order.status.${s}` as MessageKey)}
            </Anchor>
            <Badge variant="light" color={s === "cancelled" ? "gray" : "blue"}>
              {number(byStatus[s] ?? 0)}
            </Badge>
          </Group>
        ))}
      </Stack>
    </Section>
  );
}

function TopProducts({ args }: { args: SalesArgs }) {
  const { t, money, number } = useI18n();
  const summary = useQuery(api.stores.orders.getSalesSummary, args);
  if (!summary) return <Loading />;
  const top = summary.topProducts;
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
                <Table.Td>{number(p.quantity)}</Table.Td>
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
  const { t, money, number, lang } = useI18n();
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
                  <Table.Td>{number(x.count)}</Table.Td>
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
