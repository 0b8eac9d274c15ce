import { Select } from "@mantine/core";
import { api } from "@marketplace/api";
import { usePaginatedQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useEffect } from "react";
import { useI18n } from "../app/i18n";

export type Store = FunctionReturnType<typeof api.catalog.stores.listStores>["page"][number];

// Every store, live: the catalog lists them 100 a page, and the console reads
// page after page until the last (an administrator's pickers need them all).
export function useAllStores(): Store[] | undefined {
  const { results, status, loadMore } = usePaginatedQuery(api.catalog.stores.listStores, {}, { initialNumItems: 100 });
  useEffect(() => {
    if (status === "CanLoadMore") loadMore(100);
  }, [status, loadMore]);
  return status === "LoadingFirstPage" ? undefined : results;
}

/** A searchable store picker over every store. */
export function StorePicker(props: { stores: Store[] | undefined; value: string | null; onChange(id: string | null): void; label?: string; testId?: string; w?: number }) {
  const { t } = useI18n();
  return (
    <Select
      label={props.label ?? t("payouts.store")}
      placeholder={t("store.choose")}
      data={(props.stores ?? []).map((s) => ({ value: s._id, label: s.name }))}
      value={props.value}
      onChange={props.onChange}
      searchable
      w={props.w ?? 280}
      data-testid={props.testId ?? "store-picker"}
      comboboxProps={{ withinPortal: false }}
    />
  );
}
