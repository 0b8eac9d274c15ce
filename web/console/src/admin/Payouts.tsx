import { Alert, Group, Select, Stack, Table, Text, TextInput, Title, UnstyledButton } from "@mantine/core";
import { api } from "@marketplace/api";
import { usePaginatedQuery } from "convex/react";
import { useState } from "react";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { CsvLink } from "../ui/CsvDownload";
import { PAGE, PagedList } from "../ui/PagedList";
import { StatusBadge } from "../ui/StatusBadge";
import { StorePicker, useAllStores } from "./stores";

const STATUSES = ["requested", "approved", "processing", "completed", "cancelled", "failed"] as const;
type Status = (typeof STATUSES)[number];
type Sort = "newest" | "oldest" | "amount_desc" | "amount_asc";

// Days are Asia/Dubai's (UTC+4 all year), whatever the browser's zone.
const DUBAI_OFFSET = "+04:00";
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const startOf = (day: string) => Date.parse(`${day}T00:00:00.000${DUBAI_OFFSET}`);
const endOf = (day: string) => Date.parse(`${day}T23:59:59.999${DUBAI_OFFSET}`);
const MAX_DAYS = 366;

// Every payout of every store (admins.payoutOperations.listPayouts, live):
// by status, store and request date (Dubai days), sorted by date or amount
// (a date range sorts by date: no index serves an amount sort within one),
// the page's total, and the same rows as CSV for a period.
export default function Payouts() {
  const { t, money, dateTime } = useI18n();
  const stores = useAllStores();
  const [status, setStatus] = useState<Status | null>(null);
  const [storeId, setStoreId] = useState<string | null>(null);
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [sort, setSort] = useState<Sort>("newest");
  const fromOk = DAY.test(from);
  const toOk = DAY.test(to);
  const range = fromOk || toOk;
  const effective: Sort = range && sort.startsWith("amount") ? "newest" : sort;
  const args = {
    ...(status ? { status } : {}),
    ...(storeId ? { storeId } : {}),
    ...(fromOk ? { from: startOf(from) } : {}),
    ...(toOk ? { to: endOf(to) } : {}),
    sort: effective,
  };
  const badRange = fromOk && toOk && startOf(from) > endOf(to);
  const pages = usePaginatedQuery(api.admins.payoutOperations.listPayouts, badRange ? "skip" : args, { initialNumItems: PAGE });
  const csvPeriod = fromOk && toOk && !badRange && endOf(to) - startOf(from) <= MAX_DAYS * 86_400_000;
  const csvQuery = new URLSearchParams({
    ...(csvPeriod ? { from: String(startOf(from)), to: String(endOf(to)) } : {}),
    ...(status ? { status } : {}),
    ...(storeId ? { storeId } : {}),
  });
  const header = (key: "date" | "amount", label: MessageKey) => {
    const active = key === "date" ? effective === "newest" || effective === "oldest" : effective.startsWith("amount");
    const asc = effective === "oldest" || effective === "amount_asc";
    const next: Sort = key === "date" ? (active && !asc ? "oldest" : "newest") : active && !asc ? "amount_asc" : "amount_desc";
    return (
      <Table.Th aria-sort={active ? (asc ? "ascending" : "descending") : "none"}>
        <UnstyledButton onClick={() => setSort(next)} disabled={key === "amount" && range} data-testid={`sort-${key}`} fw={600} fz="sm">
          {t(label)} {active ? (asc ? "↑" : "↓") : ""}
        </UnstyledButton>
      </Table.Th>
    );
  };
  const shown = pages.results;
  const pageTotal = shown.reduce((s, p) => s + Math.round(p.requestedAmount * 100), 0) / 100;
  return (
    <Stack>
      <Title order={2}>{t("all.title")}</Title>
      <Text size="sm">{t("all.intro")}</Text>
      <Group align="flex-end" wrap="wrap">
        <Select
          label={t("all.status")}
          placeholder={t("all.any")}
          data={STATUSES.map((s) => ({ value: s, label: t(`status.${s}` as MessageKey) }))}
          value={status}
          onChange={(v) => setStatus(v as Status | null)}
          clearable
          w={200}
          comboboxProps={{ withinPortal: false }}
          data-testid="filter-status"
        />
        <StorePicker stores={stores} value={storeId} onChange={setStoreId} testId="filter-store" w={240} />
        <TextInput type="date" label={t("all.from")} value={from} onChange={(e) => setFrom(e.currentTarget.value)} dir="ltr" data-testid="filter-from" />
        <TextInput type="date" label={t("all.to")} value={to} onChange={(e) => setTo(e.currentTarget.value)} dir="ltr" data-testid="filter-to" />
        <Stack gap={2}>
          <CsvLink path={`/api/admin/payouts.csv?${csvQuery}`} filename={`payouts-${from}-${to}.csv`} disabled={!csvPeriod} />
          {!csvPeriod && (
            <Text size="xs" c="dimmed">
              {t("csv.needsPeriod")}
            </Text>
          )}
        </Stack>
      </Group>
      {range && (
        <Text size="xs" c="dimmed">
          {t("all.rangeSortsByDate")}
        </Text>
      )}
      {badRange ? (
        <Alert color="red" role="alert">
          {t("statement.badPeriod")}
        </Alert>
      ) : (
        <PagedList pages={pages} empty={t("all.none")} emptyTestId="all-payouts-empty">
          {(results) => (
            <Table striped highlightOnHover data-testid="all-payouts">
              <Table.Thead>
                <Table.Tr>
                  {header("date", "all.date")}
                  <Table.Th>{t("payouts.store")}</Table.Th>
                  {header("amount", "all.amount")}
                  <Table.Th>{t("payouts.status")}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {results.map((p) => (
                  <Table.Tr key={p._id} data-payout={p._id} data-status={p.status} data-amount={p.requestedAmount.toFixed(2)}>
                    <Table.Td>
                      <Text size="sm">{dateTime(p.requestDate)}</Text>
                      <Text size="xs" c="dimmed" dir="ltr" ta="start">
                        {p._id}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" fw={600}>
                        <bdi>{p.storeName}</bdi>
                      </Text>
                      <Text size="xs">
                        <bdi>{p.storeOwnerName}</bdi>
                      </Text>
                    </Table.Td>
                    <Table.Td style={{ whiteSpace: "nowrap" }}>
                      <bdi>{money(p.requestedAmount)}</bdi>
                    </Table.Td>
                    <Table.Td>
                      <StatusBadge status={p.status} />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </PagedList>
      )}
      {shown.length > 0 && (
        <Text size="sm" fw={600} data-testid="all-page-total" data-total={pageTotal.toFixed(2)}>
          {t("all.pageTotal", { amount: money(pageTotal), n: shown.length })}
        </Text>
      )}
    </Stack>
  );
}
