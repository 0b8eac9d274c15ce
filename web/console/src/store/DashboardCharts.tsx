import { Card, Stack, Table, Text, Title, VisuallyHidden } from "@mantine/core";
import { Bar, CartesianGrid, ComposedChart, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useI18n } from "../app/i18n";

/** A day's or a week's sales (day: its Dubai date, YYYY-MM-DD; label: as shown). */
export interface Point {
  day: string;
  label: string;
  gross: number;
  earnings: number;
  orders: number;
}

/** A week's rating (day: its Monday). */
export interface RatingPoint {
  day: string;
  label: string;
  average: number | null;
  count: number;
}

// The dashboard's charts (Recharts, a chunk of its own, as the payout
// statistics' are). Each chart has its figures in a visually hidden table
// (screen readers; the browser tests read data-day, data-gross,
// data-orders). In Arabic the axes run right to left; the drawing itself
// stays ltr, as SVG anchors its labels by the text direction.
export default function DashboardCharts({ points, rating, week }: { points: Point[]; rating: RatingPoint[]; week: boolean }) {
  const { t, money, dir } = useI18n();
  const rtl = dir === "rtl";
  const aed = (v: unknown) => money(Number(v));
  const rated = rating.filter((r) => r.count > 0);
  return (
    <Stack>
      <div style={{ width: "100%", height: 280, direction: "ltr" }} aria-hidden="true" data-testid="dash-chart">
        <ResponsiveContainer>
          <ComposedChart data={points} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="label" reversed={rtl} />
            <YAxis orientation={rtl ? "right" : "left"} />
            <Tooltip formatter={aed} />
            <Legend />
            <Bar dataKey="gross" name={t("dash.col.gross")} fill="#1864ab" isAnimationActive={false} />
            <Line dataKey="earnings" name={t("dash.col.earnings")} stroke="#2b8a3e" dot={false} isAnimationActive={false} />
          </ComposedChart>
        </ResponsiveContainer>
      </div>
      <VisuallyHidden>
        <Table data-testid="dash-figures">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t(week ? "dash.col.week" : "dash.col.day")}</Table.Th>
              <Table.Th>{t("dash.col.gross")}</Table.Th>
              <Table.Th>{t("dash.col.earnings")}</Table.Th>
              <Table.Th>{t("dash.col.orders")}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {points.map((p) => (
              <Table.Tr key={p.day} data-day={p.day} data-gross={p.gross} data-earnings={p.earnings} data-orders={p.orders}>
                <Table.Td>{p.label}</Table.Td>
                <Table.Td>{money(p.gross)}</Table.Td>
                <Table.Td>{money(p.earnings)}</Table.Td>
                <Table.Td>{p.orders}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </VisuallyHidden>
      <Card withBorder component="section" aria-labelledby="dash-rating-title" data-testid="dash-rating">
        <Title order={3} id="dash-rating-title">
          {t("dash.rating")}
        </Title>
        {rated.length === 0 ? (
          <Text>{t("dash.noRating")}</Text>
        ) : (
          <>
            <div style={{ width: "100%", height: 220, direction: "ltr" }} aria-hidden="true">
              <ResponsiveContainer>
                <LineChart data={rating} accessibilityLayer={false}>
                  <CartesianGrid strokeDasharray="3 3" />
                  <XAxis dataKey="label" reversed={rtl} />
                  <YAxis domain={[1, 5]} orientation={rtl ? "right" : "left"} />
                  <Tooltip />
                  <Line dataKey="average" name={t("dash.col.average")} stroke="#e8590c" connectNulls isAnimationActive={false} />
                </LineChart>
              </ResponsiveContainer>
            </div>
            <VisuallyHidden>
              <Table>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t("dash.col.week")}</Table.Th>
                    <Table.Th>{t("dash.col.average")}</Table.Th>
                    <Table.Th>{t("dash.col.reviews")}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {rated.map((r) => (
                    <Table.Tr key={r.day} data-week={r.day} data-average={r.average ?? ""} data-count={r.count}>
                      <Table.Td>{r.label}</Table.Td>
                      <Table.Td>{r.average?.toFixed(2)}</Table.Td>
                      <Table.Td>{r.count}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </VisuallyHidden>
          </>
        )}
      </Card>
    </Stack>
  );
}
