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
  t(key: MessageKey, params?: Record<string, string | number>): string;
  money(aed: number): string;
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
  const dt = new Intl.DateTimeFormat(locale, { timeZone: TIME_ZONE, dateStyle: "medium", timeStyle: "short" });
  return {
    lang,
    dir: lang === "ar" ? "rtl" : "ltr",
    setLang,
    t: (key, params) => {
      let s: string = table[key] ?? en[key] ?? key;
      if (params) for (const [k, v] of Object.entries(params)) s = s.replaceAll(`{${k}}`, String(v));
      return s;
    },
    money: (aed) => money.format(aed),
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
 * A figure (an amount, a date, an id) set into a sentence, isolated (U+2068
 * FIRST STRONG ISOLATE … U+2069) so that it keeps its own direction inside
 * the other language's text: an amount stays left to right in Arabic.
 */
export const isolate = (s: string) => `\u2068${s}\u2069`;
