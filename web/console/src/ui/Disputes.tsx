import { Badge, Checkbox, Group, Stack, Table, Text } from "@mantine/core";
import type { api } from "@marketplace/api";
import type { FunctionReturnType } from "convex/server";
import { useState, type ReactNode } from "react";
import { monthOf, periodOf, type DayRange } from "../app/days";
import { useI18n } from "../app/i18n";
import { en, type MessageKey } from "../app/messages";
import { DataTable } from "./DataTable";
import { DateRangeFilter, PageTotals, StatusFilter, useSort, type Sort } from "./ListTools";
import { Loading } from "./Loading";
import { PAGE } from "./PagedList";
import { Pager, usePager, type PagerState } from "./Pager";
import { UserText } from "./UserText";
import { orderNumber } from "./Refunds";
import { Section } from "./Section";

// Disputes as the console (every store's) and the portal (the store's) list
// them: the open ones by their deadline at the processor, soonest first (the
// server's order), with the days left; then the closed ones (won or lost),
// newest first. Both lists are live and paged.

export type Dispute = FunctionReturnType<typeof api.admins.disputes.listDisputes>["page"][number];

const DAY_MS = 24 * 60 * 60 * 1000;
const STATUS_COLORS: Record<string, string> = { open: "orange", won: "green", lost: "red" };

/** The list's arguments the screens' lists take (admins' and the store's listDisputes). */
export interface DisputeArgs {
  status: "open" | "won" | "lost" | "closed";
  sort: "due" | "newest" | "oldest";
  from?: number;
  to?: number;
  paginationOpts: { numItems: number; cursor: string | null };
}
/** A page of disputes, as the list's useQuery answers it (undefined while loading). */
export type DisputePage = { page: Dispute[]; isDone: boolean; continueCursor: string } | undefined;

// Each section is a page at a time over the keyset cursors (Pager), live,
// with the page's total: the open ones by deadline (or by the date opened:
// the headers sort); the closed ones (won, lost or both) newest first or
// oldest, within a period of the date opened when chosen, all the server's.
export function DisputeLists(props: { useDisputes(args: DisputeArgs): DisputePage; storeName?(storeId: string): string }) {
  const { t } = useI18n();
  return (
    <Stack>
      <Section id="disputes-open-title" title={t("disputes.open")}>
        <OpenDisputes {...props} />
      </Section>
      <Section id="disputes-closed-title" title={t("disputes.closed")}>
        <ClosedDisputes {...props} />
      </Section>
    </Stack>
  );
}

function OpenDisputes({ useDisputes, storeName }: { useDisputes(args: DisputeArgs): DisputePage; storeName?(storeId: string): string }) {
  const { t } = useI18n();
  const [sort, onSort] = useSort({ by: "due", dir: "asc" }, (by) => (by === "due" ? "asc" : "desc"));
  // By deadline only soonest first (the server's due); by the date opened both ways.
  const value = sort.by === "due" ? { by: "due", dir: "asc" as const } : sort;
  const sortArg = value.by === "due" ? "due" : value.dir === "asc" ? "oldest" : "newest";
  const pager = usePager(sortArg);
  const page = useDisputes({ status: "open", sort: sortArg, paginationOpts: { numItems: PAGE, cursor: pager.cursor } });
  return (
    <ListBody page={page} pager={pager} empty={t("disputes.noneOpen")} testId="disputes-open">
      {(rows) => <DisputeTable disputes={rows} open storeName={storeName} testId="disputes-open" sort={{ fields: { "disputes.openedAt": "opened", "disputes.dueBy": "due" }, value, onSort }} />}
    </ListBody>
  );
}

const CLOSED = ["won", "lost"] as const;

function ClosedDisputes({ useDisputes, storeName }: { useDisputes(args: DisputeArgs): DisputePage; storeName?(storeId: string): string }) {
  const { t } = useI18n();
  const [status, setStatus] = useState<string | null>(null);
  const [dated, setDated] = useState(false);
  const [range, setRange] = useState<DayRange>(() => monthOf(Date.now()));
  const [sort, onSort] = useSort({ by: "opened", dir: "desc" });
  const period = dated ? periodOf(range) : null;
  const filters = { status: (status ?? "closed") as DisputeArgs["status"], sort: sort.dir === "asc" ? ("oldest" as const) : ("newest" as const), ...(period ?? {}) };
  const pager = usePager(JSON.stringify(filters));
  const skip = dated && period === null;
  const page = useDisputes({ ...filters, paginationOpts: { numItems: PAGE, cursor: skip ? null : pager.cursor } });
  return (
    <>
      <Group align="flex-end" wrap="wrap">
        <StatusFilter value={status} onChange={setStatus} options={CLOSED.map((s) => ({ value: s, label: t(`dispute.status.${s}` as MessageKey) }))} testId="disputes-closed-status" />
        <Checkbox label={t("ml.byDate")} checked={dated} onChange={(e) => setDated(e.currentTarget.checked)} data-testid="disputes-closed-dated" />
      </Group>
      {dated && <DateRangeFilter value={range} onChange={setRange} testId="disputes-closed-range" />}
      {skip ? null : (
        <ListBody page={page} pager={pager} empty={t("disputes.noneClosed")} testId="disputes-closed">
          {(rows) => <DisputeTable disputes={rows} open={false} storeName={storeName} testId="disputes-closed" sort={{ fields: { "disputes.openedAt": "opened" }, value: sort, onSort }} />}
        </ListBody>
      )}
    </>
  );
}

/** A section's page: a loader, "none", or its rows, their total and the pager. */
function ListBody({ page, pager, empty, testId, children }: { page: DisputePage; pager: PagerState; empty: string; testId: string; children(rows: Dispute[]): ReactNode }) {
  const { t, money } = useI18n();
  if (page === undefined) return <Loading />;
  const rows = page.page;
  // Amounts in AED (a dispute in another currency is not summed).
  const total = rows.reduce((s, d) => s + (d.currency === "aed" ? Math.round(d.amount * 100) : 0), 0) / 100;
  return (
    <>
      {rows.length === 0 ? <Text data-testid={`${testId}-empty`}>{empty}</Text> : children(rows)}
      {rows.length > 0 && <PageTotals rows={rows.length} figures={[{ label: t("disputes.amount"), value: money(total), key: total.toFixed(2) }]} testId={`${testId}-page-total`} />}
      <Pager pager={pager} page={page} pageSize={PAGE} testId={`${testId}-pager`} />
    </>
  );
}

function DisputeTable({ disputes, open, storeName, testId, sort }: { disputes: Dispute[]; open: boolean; storeName?(id: string): string; testId: string; sort: { fields: Partial<Record<MessageKey, string>>; value: Sort; onSort(by: string): void } }) {
  const { t, money, dateTime } = useI18n();
  const columns: MessageKey[] = [
    "disputes.order",
    ...(storeName ? (["disputes.store"] as MessageKey[]) : []),
    "disputes.amount",
    "disputes.reason",
    "disputes.openedAt",
    open ? "disputes.dueBy" : "disputes.closedAt",
    open ? "statement.status" : "disputes.outcome",
  ];
  const now = Date.now();
  return (
    <DataTable data-testid={testId} columns={columns} sort={sort}>
      {disputes.map((d) => {
        const days = Math.ceil((d.dueBy - now) / DAY_MS);
        return (
          <Table.Tr key={d.disputeId} data-dispute={d.disputeId} data-order={d.orderId} data-due={d.dueBy} data-status={d.status}>
            <Table.Td>
              <Text size="sm" fw={600} dir="ltr" title={d.orderId}>
                {orderNumber(d.orderId)}
              </Text>
              <Text size="xs" ff="monospace" dir="ltr">
                {d.disputeId}
              </Text>
            </Table.Td>
            {storeName && (
              <Table.Td>
                <UserText>{storeName(d.storeId)}</UserText>
              </Table.Td>
            )}
            <Table.Td style={{ whiteSpace: "nowrap" }}>
              <bdi>{d.currency === "aed" ? money(d.amount) : `${d.currency.toUpperCase()} ${d.amount.toFixed(2)}`}</bdi>
            </Table.Td>
            <Table.Td>
              <DisputeReason reason={d.reason} />
            </Table.Td>
            <Table.Td style={{ whiteSpace: "nowrap" }}>{dateTime(d.openedAt)}</Table.Td>
            <Table.Td style={{ whiteSpace: "nowrap" }}>
              {open ? (
                <>
                  <Text size="sm" fw={600}>
                    {dateTime(d.dueBy)}
                  </Text>
                  <Text size="xs" c={days <= 2 ? "var(--mantine-color-error)" : undefined} data-testid="dispute-days">
                    {days < 0 ? t("disputes.overdue") : t("disputes.daysLeft", { n: days })}
                  </Text>
                </>
              ) : (
                dateTime(d.closedAt)
              )}
            </Table.Td>
            <Table.Td>
              <Badge color={STATUS_COLORS[d.status] ?? "gray"} variant="light" style={{ minWidth: "max-content" }}>
                {t(`dispute.status.${d.status}` as MessageKey)}
              </Badge>
            </Table.Td>
          </Table.Tr>
        );
      })}
    </DataTable>
  );
}

// The processor's reason in the viewer's language, its code kept as the
// title; a reason the console has no words for shows as its code.
function DisputeReason({ reason }: { reason: string }) {
  const { t } = useI18n();
  const key = `dispute.reason.${reason}`;
  if (!Object.hasOwn(en, key)) {
    return (
      <Text size="sm" ff="monospace" dir="ltr" data-reason={reason}>
        {reason}
      </Text>
    );
  }
  return (
    <Text size="sm" title={reason} data-reason={reason}>
      {t(key as MessageKey)}
    </Text>
  );
}
