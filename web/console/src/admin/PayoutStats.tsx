import { Card, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQueries, useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { lazy, Suspense, useMemo } from "react";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { Loading } from "../ui/Loading";
import type { Day } from "./PayoutCharts";

// Recharts is large: the charts are a chunk of their own, fetched after the
// figures show, so this screen's first load stays within the budget.
const Charts = lazy(() => import("./PayoutCharts"));

const DAY_MS = 86_400_000;
const DUBAI_OFFSET_MS = 4 * 3_600_000; // the UAE keeps UTC+4 all year

/** The Dubai days of this month up to today, as [start, end] epoch ms (inclusive). */
function daysOfMonth(now: number): { label: string; start: number; end: number }[] {
  const local = new Date(now + DUBAI_OFFSET_MS);
  const first = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), 1) - DUBAI_OFFSET_MS;
  const days = [];
  for (let d = 1; d <= local.getUTCDate(); d++) {
    const start = first + (d - 1) * DAY_MS;
    days.push({ label: String(d), start, end: start + DAY_MS - 1 });
  }
  return days;
}

// Payout statistics: the server's figures (getPayoutStatistics), live, and
// charts of this month by request day: amounts (open and completed), the
// top stores, and the average time to pay. The per-day series come from one
// getPayoutStatistics per day with that day's dateRange (the API has no
// series query; within the month of now, open + completed this month is
// every payout requested that day that was not rejected or failed).
export default function PayoutStats() {
  const { t, money } = useI18n();
  const stats = useQuery(api.admins.payoutOperations.getPayoutStatistics, {});
  // The month's days, fixed for the screen's life (a reload moves to a new day).
  const days = useMemo(() => daysOfMonth(Date.now()), []);
  if (stats === undefined) return <Loading />;
  if (stats === null) return null;
  const cards: [MessageKey, string, string][] = [
    ["stats.pending", money(stats.totalPendingAmount), t("stats.count", { n: stats.totalPendingRequests })],
    ["stats.processing", money(stats.totalProcessingAmount), t("stats.count", { n: stats.totalProcessingRequests })],
    ["stats.today", money(stats.totalCompletedTodayAmount), t("stats.count", { n: stats.totalCompletedToday })],
    ["stats.month", money(stats.totalCompletedThisMonthAmount), t("stats.count", { n: stats.totalCompletedThisMonth })],
    ["stats.avgTime", t("stats.hours", { h: stats.averageProcessingTime.toFixed(1) }), ""],
  ];
  return (
    <Stack>
      <Title order={2}>{t("stats.title")}</Title>
      <Text size="sm">{t("stats.intro")}</Text>
      <SimpleGrid cols={{ base: 2, md: 5 }}>
        {cards.map(([label, value, sub]) => (
          <Card withBorder key={label} data-testid={`stat-${label.slice(6)}`}>
            <Text size="sm">{t(label)}</Text>
            <Text size="xl" fw={700}>
              {value}
            </Text>
            {sub && <Text size="sm">{sub}</Text>}
          </Card>
        ))}
      </SimpleGrid>
      <DaySeries days={days} top={stats.topStoresByPayouts} />
    </Stack>
  );
}

type Top = { storeId: string; storeName: string; totalPayouts: number; totalAmount: number }[];

function DaySeries({ days, top }: { days: { label: string; start: number; end: number }[]; top: Top }) {
  // One live query per day, in one subscription set.
  const queries = useMemo(
    () =>
      Object.fromEntries(
        days.map((d) => [d.label, { query: api.admins.payoutOperations.getPayoutStatistics, args: { dateRange: { startDate: d.start, endDate: d.end } } }]),
      ),
    [days],
  );
  const results = useQueries(queries);
  const series = days.map((d) => ({ d, s: results[d.label] as Stats | undefined | Error }));
  const failed = series.find((x) => x.s instanceof Error);
  if (failed) throw failed.s;
  if (series.some((x) => x.s === undefined)) return <Loading />;
  const data: Day[] = series.map(({ d, s }) => {
    const st = s as Stats;
    return {
      day: d.label,
      open: round2((st?.totalPendingAmount ?? 0) + (st?.totalProcessingAmount ?? 0)),
      completed: round2(st?.totalCompletedThisMonthAmount ?? 0),
      hours: st && st.totalCompletedThisMonth > 0 ? Number(st.averageProcessingTime.toFixed(2)) : null,
    };
  });
  return (
    <Suspense fallback={<Loading />}>
      <Charts days={data} top={top} />
    </Suspense>
  );
}

type Stats = FunctionReturnType<typeof api.admins.payoutOperations.getPayoutStatistics>;
const round2 = (n: number) => Math.round(n * 100) / 100;
