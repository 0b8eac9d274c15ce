import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { ar, en, type MessageKey } from "./messages";

export type Lang = "en" | "ar";

// Amounts are AED with two decimals, dates and times are Asia/Dubai's,
// whatever the browser's own zone. Arabic keeps Latin digits (as UAE
// businesses write amounts and IBANs); its layout is right to left.
const locales: Record<Lang, string> = { en: "en-AE", ar: "ar-AE-u-nu-latn" };
export const TIME_ZONE = "Asia/Dubai";
const STORAGE_KEY = "marketplace.lang";

export interface I18n {
  lang: Lang;
  dir: "ltr" | "rtl";
  setLang(lang: Lang): void;
  /**
   * The message key in the chosen language, each {param} replaced by its
   * value, isolated (isolateIn) wherever its direction could differ from the
   * sentence's: a name, a figure or a date keeps its own direction inside the
   * sentence, whatever the language of either.
   */
  /** The message in the viewer's language; each {param} isolated, a number one in the locale's form (number()). */
  t(key: MessageKey, params?: Record<string, string | number>): string;
  money(aed: number): string;
  /** A count or other plain number in the locale's form (grouped). */
  number(n: number): string;
  /** An amount with its sign (+ or -; none for zero), as a statement shows changes. */
  signedMoney(aed: number): string;
  dateTime(ms: number | null | undefined): string;
  /** The name in the chosen language where the record has both. */
  name(rec: { name: string; nameArabic?: string | null }): string;
}

function initialLang(): Lang {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved === "en" || saved === "ar") return saved;
  } catch {
    // storage may be unavailable (private mode): English
  }
  return "en";
}

export function makeI18n(lang: Lang, setLang: (l: Lang) => void): I18n {
  const table = lang === "ar" ? ar : en;
  const locale = locales[lang];
  const money = new Intl.NumberFormat(locale, { style: "currency", currency: "AED", minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const signed = new Intl.NumberFormat(locale, { style: "currency", currency: "AED", minimumFractionDigits: 2, maximumFractionDigits: 2, signDisplay: "exceptZero" });
  const plain = new Intl.NumberFormat(locale);
  const dt = new Intl.DateTimeFormat(locale, { timeZone: TIME_ZONE, dateStyle: "medium", timeStyle: "short" });
  return {
    lang,
    dir: lang === "ar" ? "rtl" : "ltr",
    setLang,
    t: (key, params) => {
      let s: string = table[key] ?? en[key] ?? key;
      // A number (a count) in the locale's form, as number() writes it.
      if (params) for (const [k, v] of Object.entries(params)) s = s.replaceAll(`{${k}}`, isolateIn(lang, typeof v === "number" ? plain.format(v) : v));
      return s;
    },
    money: (aed) => money.format(aed),
    number: (n) => plain.format(n),
    signedMoney: (aed) => signed.format(aed),
    dateTime: (ms) => (ms == null ? "" : dt.format(new Date(ms))),
    name: (rec) => (lang === "ar" && rec.nameArabic ? rec.nameArabic : rec.name),
  };
}

const Ctx = createContext<I18n | null>(null);

export function I18nProvider({ children }: { children: ReactNode }) {
  const [lang, setLangState] = useState<Lang>(initialLang);
  const setLang = useCallback((l: Lang) => {
    setLangState(l);
    try {
      localStorage.setItem(STORAGE_KEY, l);
    } catch {
      // not kept: fine
    }
  }, []);
  const value = useMemo(() => makeI18n(lang, setLang), [lang, setLang]);
  useEffect(() => {
    document.documentElement.lang = lang;
    document.documentElement.dir = value.dir;
  }, [lang, value.dir]);
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export function useI18n(): I18n {
  const v = useContext(Ctx);
  if (!v) throw new Error("useI18n outside I18nProvider");
  return v;
}

/**
 * A figure, a name or a date set into a sentence, isolated (U+2068 FIRST
 * STRONG ISOLATE … U+2069 POP DIRECTIONAL ISOLATE) so that it keeps its own
 * direction inside the other language's text: an amount stays left to right
 * in Arabic, an Arabic name does not pull the date after it. t() does it for
 * every parameter; a string already isolated is left as it is. Outside a
 * sentence, use UserText (src/ui/UserText.tsx) for what a person typed.
 */
export const isolate = (s: string) => (s.startsWith("\u2068") && s.endsWith("\u2069") ? s : `\u2068${s}\u2069`);

// Right-to-left letters (Hebrew, Arabic and its supplements and
// presentation forms, Arabic-Indic digits among them).
const RTL_LETTER = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;
// What an Arabic value may hold and still read right inside an Arabic
// sentence without isolation: right-to-left letters, spaces, punctuation.
const RTL_ONLY = /^[\s\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF.,:;!?'"()«»\-–—·]*$/;

/**
 * A parameter's value as t() sets it into a sentence of lang: isolated
 * (isolate) when its direction may differ from the sentence's: in English,
 * a value with a right-to-left letter (an Arabic name); in Arabic, any value
 * but plain Arabic words (an amount, a date, a Latin name, an id). A value
 * of the sentence's own direction needs none, and is left as it is, so its
 * text (and a control's accessible name) reads the same as before.
 */
export function isolateIn(lang: Lang, v: string): string {
  const needs = lang === "ar" ? !RTL_ONLY.test(v) : RTL_LETTER.test(v);
  return needs ? isolate(v) : v;
}
