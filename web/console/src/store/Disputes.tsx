import { Stack, Text } from "@mantine/core";
import { api } from "@marketplace/api";
import { usePaginatedQuery } from "convex/react";
import { useI18n } from "../app/i18n";
import { DisputeLists } from "../ui/Disputes";
import { PAGE } from "../ui/PagedList";
import { useStore } from "./StoreContext";
import { ScreenTitle } from "../ui/ScreenTitle";

// The store's disputes (stores.disputes.listDisputes), live: open ones by
// their deadline, soonest first; then the closed ones.
export default function Disputes() {
  const { t } = useI18n();
  const { store } = useStore();
  const open = usePaginatedQuery(api.stores.disputes.listDisputes, { storeId: store._id, status: "open" }, { initialNumItems: PAGE });
  const all = usePaginatedQuery(api.stores.disputes.listDisputes, { storeId: store._id }, { initialNumItems: PAGE });
  return (
    <Stack>
      <ScreenTitle screen={t("disputes.title")} name={store.name} />
      <Text size="sm">{t("disputes.intro")}</Text>
      <DisputeLists open={open} all={all} />
    </Stack>
  );
}
