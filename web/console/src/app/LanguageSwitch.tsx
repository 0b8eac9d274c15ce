import { Button } from "@mantine/core";
import { useI18n } from "./i18n";

/** English or Arabic: the button names the other language, in that language. */
export function LanguageSwitch() {
  const { t, lang, setLang } = useI18n();
  const other = lang === "ar" ? "en" : "ar";
  return (
    <Button variant="subtle" size="compact-sm" onClick={() => setLang(other)} title={t("lang.switchLabel")} lang={other} data-testid="language">
      {t("lang.switch")}
    </Button>
  );
}
