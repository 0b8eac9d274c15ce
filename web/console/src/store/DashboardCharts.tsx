import { Card, Text, Title } from "@mantine/core";
import { Bar, CartesianGrid, ComposedChart, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { useI18n } from "../app/i18n";
import { ChartFrame, Figures } from "../ui/ChartFrame";

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
// statistics' are): the sales (the default export) and the rating
// (RatingChart), each in its own part of the dashboard. Each chart has its
// figures in a visually hidden table (screen readers; the browser tests
// read data-day, data-gross, data-orders). In Arabic the axes run right to
// left (src/ui/ChartFrame.tsx).
export default function SalesChart({ points, week }: { points: Point[]; week: boolean }) {
  const { t, money, number, dir } = useI18n();
  const rtl = dir === "rtl";
  const aed = (v: unknown) => money(Number(v));
  return (
    <>
      <ChartFrame height={280} testId="dash-chart">
        <ComposedChart data={points} accessibilityLayer={false}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="label" reversed={rtl} />
          <YAxis orientation={rtl ? "right" : "left"} />
          <Tooltip formatter={aed} />
          <Legend />
          <Bar dataKey="gross" name={t("dash.col.gross")} fill="#1864ab" isAnimationActive={false} />
          <Line dataKey="earnings" name={t("dash.col.earnings")} stroke="#2b8a3e" dot={false} isAnimationActive={false} />
        </ComposedChart>
      </ChartFrame>
      <Figures
        testId="dash-figures"
        head={[t(week ? "dash.col.week" : "dash.col.day"), t("dash.col.gross"), t("dash.col.earnings"), t("dash.col.orders")]}
        rows={points.map((p) => ({
          key: p.day,
          cells: [p.label, money(p.gross), money(p.earnings), number(p.orders)],
          attrs: { "data-day": p.day, "data-gross": p.gross, "data-earnings": p.earnings, "data-orders": p.orders },
        }))}
      />
    </>
  );
}

/** The rating by week, in its own card. */
export function RatingChart({ rating }: { rating: RatingPoint[] }) {
  const { t, number, dir } = useI18n();
  const rtl = dir === "rtl";
  const rated = rating.filter((r) => r.count > 0);
  return (
    <Card withBorder component="section" aria-labelledby="dash-rating-title" data-testid="dash-rating">
      <Title order={3} id="dash-rating-title">
        {t("dash.rating")}
      </Title>
      {rated.length === 0 ? (
        <Text>{t("dash.noRating")}</Text>
      ) : (
        <>
          <ChartFrame height={220}>
            <LineChart data={rating} accessibilityLayer={false}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="label" reversed={rtl} />
              <YAxis domain={[1, 5]} orientation={rtl ? "right" : "left"} />
              <Tooltip />
              <Line dataKey="average" name={t("dash.col.average")} stroke="#e8590c" connectNulls isAnimationActive={false} />
            </LineChart>
          </ChartFrame>
          <Figures
            head={[t("dash.col.week"), t("dash.col.average"), t("dash.col.reviews")]}
            rows={rated.map((r) => ({
              key: r.day,
              cells: [r.label, r.average === null ? "" : number(Math.round(r.average * 100) / 100), number(r.count)],
              attrs: { "data-week": r.day, "data-average": r.average ?? "", "data-count": r.count },
            }))}
          />
        </>
      )}
    </Card>
  );
}
