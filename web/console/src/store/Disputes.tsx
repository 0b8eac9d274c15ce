import { Stack, Text } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import { useI18n } from "../app/i18n";
import { DisputeLists, type DisputeArgs } from "../ui/Disputes";
import { useStore } from "./StoreContext";
import { ScreenTitle } from "../ui/ScreenTitle";

// The store's disputes (stores.disputes.listDisputes), live: open ones by
// their deadline, soonest first; then the closed ones.
export default function Disputes() {
  const { t } = useI18n();
  const { store } = useStore();
  // The store's disputes, a page of the list the section asks for (a hook, called by each section).
  const useDisputes = (args: DisputeArgs) => useQuery(api.stores.disputes.listDisputes, { storeId: store._id, ...args });
  return (
    <Stack>
      <ScreenTitle screen={t("disputes.title")} name={store.name} />
      <Text size="sm">{t("disputes.intro")}</Text>
      <DisputeLists useDisputes={useDisputes} />
    </Stack>
  );
}
