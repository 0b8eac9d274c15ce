import { Card, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { useI18n } from "../app/i18n";
import { ChartFrame, Figures } from "../ui/ChartFrame";

export interface Day {
  day: string;
  open: number;
  completed: number;
  hours: number | null;
}

type Top = { storeId: string; storeName: string; totalPayouts: number; totalAmount: number }[];

// The payout statistics' charts (Recharts, a chunk of its own). Each chart
// has its figures in a visually hidden table for screen readers. In Arabic
// the axes run right to left (src/ui/ChartFrame.tsx).
export default function PayoutCharts({ days, top }: { days: Day[]; top: Top }) {
  const { t, money, dir } = useI18n();
  const rtl = dir === "rtl";
  const aed = (v: unknown) => money(Number(v));
  return (
    <Stack>
      <Card withBorder component="section" aria-labelledby="per-day-title" data-testid="chart-per-day">
        <Title order={3} id="per-day-title">
          {t("stats.perDay")}
        </Title>
        <ChartFrame height={280}>
          <BarChart data={days} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="day" reversed={rtl} />
            <YAxis orientation={rtl ? "right" : "left"} />
            <Tooltip formatter={aed} />
            <Legend />
            <Bar dataKey="completed" name={t("stats.completed")} stackId="a" fill="#2b8a3e" isAnimationActive={false} />
            <Bar dataKey="open" name={t("stats.open")} stackId="a" fill="#1864ab" isAnimationActive={false} />
          </BarChart>
        </ChartFrame>
        <Figures head={[t("stats.day"), t("stats.completed"), t("stats.open")]} rows={days.map((d) => ({ key: d.day, cells: [d.day, money(d.completed), money(d.open)] }))} />
      </Card>
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Card withBorder component="section" aria-labelledby="top-title" data-testid="chart-top-stores">
          <Title order={3} id="top-title">
            {t("stats.topStores")}
          </Title>
          {top.length === 0 ? (
            <Text>{t("stats.noTop")}</Text>
          ) : (
            <>
              <ChartFrame height={260}>
                <BarChart data={top} layout="vertical" margin={{ left: 24, right: 24 }} accessibilityLayer={false}>
                  <CartesianGrid strokeDasharray="3 3" />
                  <XAxis type="number" reversed={rtl} />
                  <YAxis type="category" dataKey="storeName" width={140} orientation={rtl ? "right" : "left"} />
                  <Tooltip formatter={aed} />
                  <Bar dataKey="totalAmount" name={t("stats.amount")} fill="#2b8a3e" isAnimationActive={false} />
                </BarChart>
              </ChartFrame>
              <Figures rows={top.map((s) => ({ key: s.storeId, cells: [s.storeName, money(s.totalAmount), t("stats.count", { n: s.totalPayouts })] }))} />
            </>
          )}
        </Card>
        <Card withBorder component="section" aria-labelledby="avg-title" data-testid="chart-average-time">
          <Title order={3} id="avg-title">
            {t("stats.avgPerDay")}
          </Title>
          <ChartFrame height={260}>
            <LineChart data={days} accessibilityLayer={false}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="day" reversed={rtl} />
              <YAxis orientation={rtl ? "right" : "left"} />
              <Tooltip formatter={(v) => t("stats.hours", { h: Number(v).toFixed(1) })} />
              <Line dataKey="hours" name={t("stats.avgTime")} stroke="#e8590c" connectNulls isAnimationActive={false} />
            </LineChart>
          </ChartFrame>
          <Figures
            rows={days.filter((d) => d.hours !== null).map((d) => ({ key: d.day, cells: [d.day, t("stats.hours", { h: (d.hours ?? 0).toFixed(1) })] }))}
          />
        </Card>
      </SimpleGrid>
    </Stack>
  );
}
