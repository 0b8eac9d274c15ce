// Calendar days as the marketplace counts them: Asia/Dubai's (UTC+4 all
// year: the UAE keeps no daylight saving), whatever the browser's own zone.
// A day is written YYYY-MM-DD (what <input type="date"> reads and writes); a
// period of days is inclusive, from the first millisecond of its first day
// to the last of its last (the server's from..to, epoch ms, inclusive).

import { TIME_ZONE } from "./i18n";

export const DUBAI_OFFSET = "+04:00";
const DAY_MS = 24 * 60 * 60 * 1000;
const dayFormat = new Intl.DateTimeFormat("en-CA", { timeZone: TIME_ZONE, year: "numeric", month: "2-digit", day: "2-digit" });
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A period of whole days, both inclusive (YYYY-MM-DD). */
export interface DayRange {
  from: string;
  to: string;
}

/** The day (YYYY-MM-DD) in Dubai at ms. */
export const dayAt = (ms: number): string => dayFormat.format(new Date(ms));

/** The first millisecond of day in Dubai (NaN when day is not a day). */
export const startOf = (day: string): number => (DAY.test(day) ? Date.parse(`${day}T00:00:00.000${DUBAI_OFFSET}`) : NaN);

/** The last millisecond of day in Dubai (NaN when day is not a day). */
export const endOf = (day: string): number => (DAY.test(day) ? Date.parse(`${day}T23:59:59.999${DUBAI_OFFSET}`) : NaN);

/** Whether s is a day (YYYY-MM-DD) that exists. */
export const isDay = (s: string): boolean => !Number.isNaN(startOf(s)) && dayAt(startOf(s)) === s;

/** The day n days after day (before for a negative n). */
export const addDays = (day: string, n: number): string => dayAt(startOf(day) + n * DAY_MS);

/** The first and last day of the month ago months before today's (in Dubai). */
export function monthOf(now: number, ago = 0): DayRange {
  const [y, m] = dayAt(now).split("-").map(Number);
  const first = new Date(Date.UTC(y, m - 1 - ago, 1));
  const last = new Date(Date.UTC(y, m - ago, 0));
  const iso = (d: Date) => d.toISOString().slice(0, 10);
  return { from: iso(first), to: iso(last) };
}

/** The ready-made periods of a list's date filter. */
export type Preset = "today" | "last7" | "thisMonth" | "lastMonth";
export const PRESETS: Preset[] = ["today", "last7", "thisMonth", "lastMonth"];

/** The days of preset at now: today; the last 7 days, today included; this month; last month. */
export function presetRange(preset: Preset, now: number): DayRange {
  const today = dayAt(now);
  switch (preset) {
    case "today":
      return { from: today, to: today };
    case "last7":
      return { from: addDays(today, -6), to: today };
    case "thisMonth":
      return monthOf(now);
    case "lastMonth":
      return monthOf(now, 1);
  }
}

/** The preset whose days range is at now, if one is. */
export function presetOf(range: DayRange, now: number): Preset | null {
  return PRESETS.find((p) => {
    const r = presetRange(p, now);
    return r.from === range.from && r.to === range.to;
  }) ?? null;
}

/**
 * range as the server's inclusive epoch-ms bounds, or null when a day is
 * not one or the period is reversed; maxDays (366 for exports and the
 * statement, ADR 0157) bounds its length in days.
 */
export function periodOf(range: DayRange, maxDays = 366): { from: number; to: number } | null {
  if (!isDay(range.from) || !isDay(range.to)) return null;
  const from = startOf(range.from);
  const to = endOf(range.to);
  if (from > to || to - from > maxDays * DAY_MS) return null;
  return { from, to };
}
