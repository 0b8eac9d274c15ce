import { Checkbox, Group, Stack, Table, Text, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import { useState } from "react";
import { monthOf, periodOf, type DayRange } from "../app/days";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { CsvButton, DateRangeFilter, PageTotals, SortableTh, StatusFilter, useSort } from "../ui/ListTools";
import { Loading } from "../ui/Loading";
import { Actor, payoutNumber } from "../ui/names";
import { queryParam } from "../ui/OrderList";
import { Pager, usePager } from "../ui/Pager";
import { StatusBadge } from "../ui/StatusBadge";
import { UserText } from "../ui/UserText";
import { StorePicker, useAllStores } from "./stores";

const STATUSES = ["requested", "approved", "processing", "completed", "cancelled", "failed"] as const;
type Status = (typeof STATUSES)[number];
const PAGE_SIZE = 20;

// Every payout of every store (admins.payoutOperations.listPayouts), a page
// at a time over the keyset cursors, each page live: by status, store and
// request date (Dubai days, when "by request date" is ticked), sorted by
// date or amount (a date range sorts by date: no index serves an amount
// sort within one, and the server refuses it), the page's total, and the
// same rows as CSV for the period.
export default function Payouts() {
  const { t, money, dateTime } = useI18n();
  const stores = useAllStores();
  const [status, setStatus] = useState<Status | null>(null);
  const [storeId, setStoreId] = useState<string | null>(() => queryParam("storeId") ?? null);
  const [dated, setDated] = useState(false);
  const [range, setRange] = useState<DayRange>(() => monthOf(Date.now()));
  const [sort, onSort] = useSort({ by: "date", dir: "desc" });
  const period = dated ? periodOf(range) : null;
  const bySort = dated && sort.by === "amount" ? { by: "date", dir: sort.dir } : sort;
  const sortArg = bySort.by === "amount" ? (bySort.dir === "asc" ? "amount_asc" : "amount_desc") : bySort.dir === "asc" ? "oldest" : "newest";
  const filters = { ...(status ? { status } : {}), ...(storeId ? { storeId } : {}), ...(period ?? {}), sort: sortArg as "newest" | "oldest" | "amount_desc" | "amount_asc" };
  const pager = usePager(JSON.stringify(filters));
  const skip = dated && period === null;
  const page = useQuery(api.admins.payoutOperations.listPayouts, skip ? "skip" : { ...filters, paginationOpts: { numItems: PAGE_SIZE, cursor: pager.cursor } });
  const csvQuery = new URLSearchParams({
    ...(period ? { from: String(period.from), to: String(period.to) } : {}),
    ...(status ? { status } : {}),
    ...(storeId ? { storeId } : {}),
  });
  const rows = page?.page ?? [];
  const pageTotal = rows.reduce((s, p) => s + Math.round(p.requestedAmount * 100), 0) / 100;
  return (
    <Stack>
      <Title order={2}>{t("all.title")}</Title>
      <Text size="sm">{t("all.intro")}</Text>
      <Group align="flex-end" wrap="wrap">
        <StatusFilter
          value={status}
          onChange={(v) => setStatus(v as Status | null)}
          options={STATUSES.map((s) => ({ value: s, label: t(`status.${s}` as MessageKey) }))}
          testId="filter-status"
        />
        <StorePicker stores={stores} value={storeId} onChange={setStoreId} testId="filter-store" w={240} />
      </Group>
      <Checkbox label={t("all.byDate")} checked={dated} onChange={(e) => setDated(e.currentTarget.checked)} data-testid="filter-dated" />
      {dated && <DateRangeFilter value={range} onChange={setRange} testId="filter-range" />}
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <Text size="xs" c="dimmed">
          {dated ? t("all.rangeSortsByDate") : t("csv.needsPeriod")}
        </Text>
        <CsvButton path={`/api/admin/payouts.csv?${csvQuery}`} filename={`payouts-${range.from}-${range.to}.csv`} disabled={!period} testId="csv-payouts" />
      </Group>
      {skip ? null : page === undefined ? (
        <Loading />
      ) : rows.length === 0 ? (
        <Text data-testid="all-payouts-empty">{t("all.none")}</Text>
      ) : (
        <Table striped highlightOnHover data-testid="all-payouts">
          <Table.Thead>
            <Table.Tr>
              <SortableTh label={t("all.date")} column="date" sort={bySort} onSort={onSort} />
              <Table.Th>{t("payouts.store")}</Table.Th>
              {dated ? <Table.Th>{t("all.amount")}</Table.Th> : <SortableTh label={t("all.amount")} column="amount" sort={bySort} onSort={onSort} />}
              <Table.Th visibleFrom="sm">{t("payouts.status")}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((p) => (
              <Table.Tr key={p._id} data-payout={p._id} data-status={p.status} data-amount={p.requestedAmount.toFixed(2)}>
                <Table.Td>
                  <Text size="sm">{dateTime(p.requestDate)}</Text>
                  <Text size="xs" c="dimmed" ff="monospace" dir="ltr" title={p._id} data-testid="payout-number">
                    {payoutNumber(p._id)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" fw={600}>
                    <UserText>{p.storeName}</UserText>
                  </Text>
                  <Text size="xs">
                    <UserText>{p.storeOwnerName}</UserText>
                  </Text>
                </Table.Td>
                <Table.Td style={{ whiteSpace: "nowrap" }}>
                  <bdi>{money(p.requestedAmount)}</bdi>
                  {/* On phones the status goes under the amount. */}
                  <Stack hiddenFrom="sm" mt={4} gap={0}>
                    <StatusBadge status={p.status} />
                  </Stack>
                </Table.Td>
                <Table.Td visibleFrom="sm">
                  <StatusBadge status={p.status} />
                  <DecidedBy payout={p} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {rows.length > 0 && <PageTotals rows={rows.length} figures={[{ label: t("all.amount"), value: money(pageTotal), key: pageTotal.toFixed(2) }]} testId="all-page-total" />}
      <Pager pager={pager} page={page ?? undefined} pageSize={PAGE_SIZE} />
    </Stack>
  );
}

/** The latest move an administrator made of a payout, by whom (names: docs/adr/0168). */
function DecidedBy({ payout }: { payout: { history: { action: string; by: string; byName?: string | null }[] } }) {
  const move = [...payout.history].reverse().find((h) => h.action !== "requestPayout" && h.by !== "system" && h.by !== "processor");
  if (!move) return null;
  return (
    <div data-testid="payout-decided-by">
      <Actor id={move.by} name={move.byName} />
    </div>
  );
}
