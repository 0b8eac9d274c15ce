import { Select, Text } from "@mantine/core";
import { api } from "@marketplace/api";
import { usePaginatedQuery } from "convex/react";
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { useI18n } from "../app/i18n";
import { useSession } from "../app/session";
import { ErrorBoundary } from "../ui/ErrorBoundary";
import { Loading } from "../ui/Loading";

// The stores the signed-in owner owns (stores.catalog.listMyStores, live, page
// after page until the last), and the one the portal shows.

export interface OwnedStore {
  _id: string;
  name: string;
  isOpen: boolean;
  isActive: boolean;
}

interface StoreCtx {
  stores: OwnedStore[];
  store: OwnedStore;
  select(id: string): void;
}

const Ctx = createContext<StoreCtx | null>(null);
const PAGE = 100;

export function useStore(): StoreCtx {
  const v = useContext(Ctx);
  if (!v) throw new Error("useStore outside StoreProvider");
  return v;
}

export function StoreProvider(props: { children: ReactNode; denied: ReactNode }) {
  // A failing query throws while rendering: the boundary shows it.
  return (
    <ErrorBoundary>
      <OwnedStores {...props} />
    </ErrorBoundary>
  );
}

function OwnedStores({ children, denied }: { children: ReactNode; denied: ReactNode }) {
  const { identity } = useSession();
  const { results, status, loadMore } = usePaginatedQuery(api.stores.catalog.listMyStores, {}, { initialNumItems: PAGE });
  useEffect(() => {
    if (status === "CanLoadMore") loadMore(PAGE);
  }, [status, loadMore]);
  const stores = useMemo(
    () => (status === "LoadingFirstPage" ? null : results.map((s): OwnedStore => ({ _id: s._id, name: s.name, isOpen: s.isOpen, isActive: s.isActive }))),
    [results, status],
  );
  const storageKey = `marketplace.store.${identity.sub}`;
  const [selected, setSelected] = useState<string | null>(() => sessionStorage.getItem(storageKey));

  if (!stores) return <Loading />;
  if (stores.length === 0) return <>{denied}</>;
  const store = stores.find((s) => s._id === selected) ?? stores[0];
  const select = (id: string) => {
    setSelected(id);
    sessionStorage.setItem(storageKey, id);
  };
  return <Ctx.Provider value={{ stores, store, select }}>{children}</Ctx.Provider>;
}

/** The store picker; inPopover: its options open inside (the shell's account menu on phones). */
export function StorePicker({ inPopover = false }: { inPopover?: boolean }) {
  const { t } = useI18n();
  const { stores, store, select } = useStore();
  if (stores.length < 2)
    return (
      <Text size="sm" fw={600} data-testid="store-name">
        {store.name}
      </Text>
    );
  return (
    <Select
      size="xs"
      aria-label={t("store.pick")}
      data={stores.map((s) => ({ value: s._id, label: s.name }))}
      value={store._id}
      onChange={(v) => v && select(v)}
      allowDeselect={false}
      w={inPopover ? "100%" : 200}
      comboboxProps={inPopover ? { withinPortal: false } : undefined}
    />
  );
}
