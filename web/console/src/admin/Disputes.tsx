import { Stack, Text, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { usePaginatedQuery } from "convex/react";
import { useMemo } from "react";
import { useI18n } from "../app/i18n";
import { DisputeLists } from "../ui/Disputes";
import { PAGE } from "../ui/PagedList";
import { useAllStores } from "./stores";

// Every store's disputes (admins.disputes.listDisputes), live: the open ones
// by their deadline at the processor, soonest first; then the closed ones.
export default function Disputes() {
  const { t } = useI18n();
  const stores = useAllStores();
  const names = useMemo(() => new Map((stores ?? []).map((s) => [s._id, s.name])), [stores]);
  const open = usePaginatedQuery(api.admins.disputes.listDisputes, { status: "open" }, { initialNumItems: PAGE });
  const all = usePaginatedQuery(api.admins.disputes.listDisputes, {}, { initialNumItems: PAGE });
  return (
    <Stack>
      <Title order={2}>{t("disputes.title")}</Title>
      <Text size="sm">{t("disputes.adminIntro")}</Text>
      <DisputeLists open={open} all={all} storeName={(id) => names.get(id) ?? id} />
    </Stack>
  );
}
