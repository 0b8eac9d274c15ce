import { Stack, Text, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import { useMemo } from "react";
import { useI18n } from "../app/i18n";
import { DisputeLists, type DisputeArgs } from "../ui/Disputes";
import { useAllStores } from "./stores";

// Every store's disputes (admins.disputes.listDisputes), live: the open ones
// by their deadline at the processor, soonest first; then the closed ones.
// Every store's disputes, a page of the list the section asks for.
function useDisputes(args: DisputeArgs) {
  return useQuery(api.admins.disputes.listDisputes, args);
}

export default function Disputes() {
  const { t } = useI18n();
  const stores = useAllStores();
  const names = useMemo(() => new Map((stores ?? []).map((s) => [s._id, s.name])), [stores]);
  return (
    <Stack>
      <Title order={2}>{t("disputes.title")}</Title>
      <Text size="sm">{t("disputes.adminIntro")}</Text>
      <DisputeLists useDisputes={useDisputes} storeName={(id) => names.get(id) ?? id} />
    </Stack>
  );
}
