import { Table } from "@mantine/core";
import { api } from "@marketplace/api";
import { usePaginatedQuery } from "convex/react";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { DataTable } from "./DataTable";
import { PAGE, PagedList } from "./PagedList";
import { Section } from "./Section";

// A store's ledger, newest first, live: the console's wallets screen and the
// portal's wallet show the same table, each transaction's type and status in
// the chosen language.
export function LedgerTable({ storeId }: { storeId: string }) {
  const { t, money, dateTime } = useI18n();
  // A type or status this screen has no words for shows as the server names it.
  const label = (key: string, raw: string) => {
    const s = t(key as MessageKey);
    return s === key ? raw : s;
  };
  const pages = usePaginatedQuery(api.stores.wallet.listTransactions, { storeId }, { initialNumItems: PAGE });
  return (
    <Section id="ledger-title" title={t("ledger.title")}>
      <PagedList pages={pages} empty={t("ledger.none")}>
        {(results) => (
          <DataTable data-testid="ledger" columns={["ledger.date", "ledger.type", "ledger.amount", "ledger.status", "ledger.description"]}>
            {results.map((x) => (
              <Table.Tr key={x._id} data-type={x.type}>
                <Table.Td>{dateTime(x._creationTime)}</Table.Td>
                <Table.Td>{label(`tx.${x.type}`, x.type)}</Table.Td>
                <Table.Td>{money(x.amount)}</Table.Td>
                <Table.Td>{label(`tx.status.${x.status}`, x.status)}</Table.Td>
                <Table.Td>{x.description}</Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
        )}
      </PagedList>
    </Section>
  );
}
