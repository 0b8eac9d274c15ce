import { TextInput } from "@mantine/core";
import { useState, type FormEvent } from "react";
import { useI18n } from "../app/i18n";
import { navigate } from "../app/router";

/** The search's address for what was typed. */
export const searchPath = (q: string) => `/admin/search?q=${encodeURIComponent(q.trim())}`;

/** Opens the search for what was typed; a popstate tells the open search screen of a new query on the same path. */
export function openSearch(q: string) {
  navigate(searchPath(q));
  window.dispatchEvent(new PopStateEvent("popstate"));
}

// The administrators' search box in the console's header (wider screens;
// on phones the navigation's Search screen has its own): an order number
// (#A1B2C3), an order id, a customer's name, phone or email, a store's name;
// Enter opens /admin/search?q=.
export function SearchBox() {
  const { t } = useI18n();
  const [q, setQ] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (q.trim()) openSearch(q);
  };
  return (
    <form role="search" onSubmit={submit} aria-label={t("search.label")}>
      <TextInput
        aria-label={t("search.label")}
        placeholder={t("search.placeholder")}
        value={q}
        onChange={(e) => setQ(e.currentTarget.value)}
        size="xs"
        w={240}
        visibleFrom="sm"
        name="q"
        data-testid="header-search"
      />
    </form>
  );
}
