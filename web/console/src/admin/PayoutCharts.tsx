import { Card, SimpleGrid, Stack, Table, Text, Title, VisuallyHidden } from "@mantine/core";
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useI18n } from "../app/i18n";

export interface Day {
  day: string;
  open: number;
  completed: number;
  hours: number | null;
}

type Top = { storeId: string; storeName: string; totalPayouts: number; totalAmount: number }[];

// The payout statistics' charts (Recharts, a chunk of its own). Each chart
// has its figures in a visually hidden table for screen readers. In Arabic
// the axes run right to left; the drawing itself stays ltr, as SVG anchors
// its labels by the text direction and would draw them over the bars.
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
        <div style={{ width: "100%", height: 280, direction: "ltr" }} aria-hidden="true">
          <ResponsiveContainer>
            <BarChart data={days} accessibilityLayer={false}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="day" reversed={rtl} />
              <YAxis orientation={rtl ? "right" : "left"} />
              <Tooltip formatter={aed} />
              <Legend />
              <Bar dataKey="completed" name={t("stats.completed")} stackId="a" fill="#2b8a3e" isAnimationActive={false} />
              <Bar dataKey="open" name={t("stats.open")} stackId="a" fill="#1864ab" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </div>
        <VisuallyHidden>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t("stats.day")}</Table.Th>
                <Table.Th>{t("stats.completed")}</Table.Th>
                <Table.Th>{t("stats.open")}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {days.map((d) => (
                <Table.Tr key={d.day}>
                  <Table.Td>{d.day}</Table.Td>
                  <Table.Td>{money(d.completed)}</Table.Td>
                  <Table.Td>{money(d.open)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </VisuallyHidden>
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
              <div style={{ width: "100%", height: 260, direction: "ltr" }} aria-hidden="true">
                <ResponsiveContainer>
                  <BarChart data={top} layout="vertical" margin={{ left: 24, right: 24 }} accessibilityLayer={false}>
                    <CartesianGrid strokeDasharray="3 3" />
                    <XAxis type="number" reversed={rtl} />
                    <YAxis type="category" dataKey="storeName" width={140} orientation={rtl ? "right" : "left"} />
                    <Tooltip formatter={aed} />
                    <Bar dataKey="totalAmount" name={t("stats.amount")} fill="#2b8a3e" isAnimationActive={false} />
                  </BarChart>
                </ResponsiveContainer>
              </div>
              <VisuallyHidden>
                <Table>
                  <Table.Tbody>
                    {top.map((s) => (
                      <Table.Tr key={s.storeId}>
                        <Table.Td>{s.storeName}</Table.Td>
                        <Table.Td>{money(s.totalAmount)}</Table.Td>
                        <Table.Td>{t("stats.count", { n: s.totalPayouts })}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </VisuallyHidden>
            </>
          )}
        </Card>
        <Card withBorder component="section" aria-labelledby="avg-title" data-testid="chart-average-time">
          <Title order={3} id="avg-title">
            {t("stats.avgPerDay")}
          </Title>
          <div style={{ width: "100%", height: 260, direction: "ltr" }} aria-hidden="true">
            <ResponsiveContainer>
              <LineChart data={days} accessibilityLayer={false}>
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis dataKey="day" reversed={rtl} />
                <YAxis orientation={rtl ? "right" : "left"} />
                <Tooltip formatter={(v) => t("stats.hours", { h: Number(v).toFixed(1) })} />
                <Line dataKey="hours" name={t("stats.avgTime")} stroke="#e8590c" connectNulls isAnimationActive={false} />
              </LineChart>
            </ResponsiveContainer>
          </div>
          <VisuallyHidden>
            <Table>
              <Table.Tbody>
                {days
                  .filter((d) => d.hours !== null)
                  .map((d) => (
                    <Table.Tr key={d.day}>
                      <Table.Td>{d.day}</Table.Td>
                      <Table.Td>{t("stats.hours", { h: (d.hours ?? 0).toFixed(1) })}</Table.Td>
                    </Table.Tr>
                  ))}
              </Table.Tbody>
            </Table>
          </VisuallyHidden>
        </Card>
      </SimpleGrid>
    </Stack>
  );
}
