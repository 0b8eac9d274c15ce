import { Select, Text } from "@mantine/core";
import { api } from "@marketplace/api";
import { useConvex } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { createContext, useContext, useEffect, useState, type ReactNode } from "react";
import { useI18n } from "../app/i18n";
import { useSession } from "../app/session";
import { Loading } from "../ui/Loading";
import { ErrorBoundary } from "../ui/ErrorBoundary";

// The stores the signed-in owner owns, and the one the portal shows. The
// public API has no "my stores" query, so the portal reads the store list
// (catalog.stores.listStores, 100 a page) and keeps the caller's: fine for
// the marketplace's size today; a query by owner is the step when it grows.

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
const MAX_PAGES = 50;

export function useStore(): StoreCtx {
  const v = useContext(Ctx);
  if (!v) throw new Error("useStore outside StoreProvider");
  return v;
}

export function StoreProvider({ children, denied }: { children: ReactNode; denied: ReactNode }) {
  const convex = useConvex();
  const { identity } = useSession();
  const [stores, setStores] = useState<OwnedStore[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const storageKey = `marketplace.store.${identity.sub}`;
  const [selected, setSelected] = useState<string | null>(() => sessionStorage.getItem(storageKey));

  useEffect(() => {
    let cancelled = false;
    (async () => {
      const mine: OwnedStore[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < MAX_PAGES; i++) {
        const page: FunctionReturnType<typeof api.catalog.stores.listStores> = await convex.query(api.catalog.stores.listStores, { paginationOpts: { numItems: 100, cursor } });
        for (const s of page.page) if (s.ownerUserId === identity.sub) mine.push({ _id: s._id, name: s.name, isOpen: s.isOpen, isActive: s.isActive });
        if (page.isDone) break;
        cursor = page.continueCursor;
      }
      if (!cancelled) setStores(mine);
    })().catch((e) => !cancelled && setError(e));
    return () => {
      cancelled = true;
    };
  }, [convex, identity.sub]);

  if (error) {
    return (
      <ErrorBoundary>
        <Thrower error={error} />
      </ErrorBoundary>
    );
  }
  if (!stores) return <Loading />;
  if (stores.length === 0) return <>{denied}</>;
  const store = stores.find((s) => s._id === selected) ?? stores[0];
  const select = (id: string) => {
    setSelected(id);
    sessionStorage.setItem(storageKey, id);
  };
  return <Ctx.Provider value={{ stores, store, select }}>{children}</Ctx.Provider>;
}

function Thrower({ error }: { error: unknown }): null {
  throw error;
}

export function StorePicker() {
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
      w={200}
    />
  );
}
