import { Alert, Checkbox, Group, Input, List, SegmentedControl, Select, Stack, Table, Text, TextInput, Textarea, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useMemo, useState } from "react";
import { useActionForm, type Refusal } from "../app/action";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { useSession } from "../app/session";
import { ConfirmAction } from "../ui/ConfirmAction";
import { DataTable } from "../ui/DataTable";
import { OptionalPeriodFilter, periodArgs, type OptionalRange } from "../ui/ListFilters";
import { PageTotals, useSort } from "../ui/ListTools";
import { Loading } from "../ui/Loading";
import { Pager, usePager } from "../ui/Pager";
import { StatusBadge } from "../ui/StatusBadge";
import { UserText } from "../ui/UserText";
import { MAX_BULK, allPicked, pickAll, pickOne, ticked } from "./bulkPick";
import { useAllStores } from "./stores";

type Payout = FunctionReturnType<typeof api.admins.payoutOperations.listPayouts>["page"][number];

// "all" is the server's status "open": requested, approved and processing.
const STATUSES = ["all", "requested", "approved", "processing"] as const;
type Status = (typeof STATUSES)[number];
export const QUEUE_PAGE = 20;

// The payout queue: open payouts (requested, approved, processing), a page
// at a time over the keyset cursors (admins.payoutOperations.listPayouts,
// status open or one of them), each page live; by store and request date
// (Dubai days, when "by request date" is ticked), oldest request first
// unless sorted otherwise (date or amount; a date range sorts by date: the
// server refuses an amount sort within one), "Page n of m" from
// countPayouts, the page's totals. Each row's actions are the moves its
// status allows, each confirmed first. Requested payouts of the page can be
// ticked and approved or rejected together (approvePayouts / rejectPayouts:
// all or none) behind one confirmation that lists them and their total.
export default function PayoutQueue() {
  const { t, money, dateTime } = useI18n();
  const allStores = useAllStores();
  const [storeId, setStoreId] = useState<string | null>(null);
  const [status, setStatus] = useState<Status>("all");
  const [range, setRange] = useState<OptionalRange>(null);
  const [sort, onSort] = useSort({ by: "date", dir: "asc" }, (by) => (by === "date" ? "asc" : "desc"));
  const period = periodArgs(range);
  const dated = range !== null;
  const bySort = dated && sort.by === "amount" ? { by: "date", dir: sort.dir } : sort;
  const sortArg = (bySort.by === "amount" ? (bySort.dir === "asc" ? "amount_asc" : "amount_desc") : bySort.dir === "asc" ? "oldest" : "newest") as "newest" | "oldest" | "amount_desc" | "amount_asc";
  const filters = { status: status === "all" ? ("open" as const) : status, ...(storeId ? { storeId } : {}), ...(period ?? {}) };
  const pager = usePager(JSON.stringify({ ...filters, sortArg }));
  const skip = period === null;
  const page = useQuery(api.admins.payoutOperations.listPayouts, skip ? "skip" : { ...filters, sort: sortArg, paginationOpts: { numItems: QUEUE_PAGE, cursor: pager.cursor } });
  const count = useQuery(api.admins.payoutOperations.countPayouts, skip ? "skip" : filters);
  const stores = useMemo(() => (allStores ?? []).map((s) => ({ value: s._id, label: s.name })), [allStores]);
  const rows = page?.page;
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [doneText, setDoneText] = useState<string | null>(null);
  // Only what is shown and still requested stays selected, and never more
  // than the server's bulk bound (bulkPick.ts).
  const requestedShown = (rows ?? []).filter((p) => p.status === "requested");
  const shownIds = requestedShown.map((p) => p._id);
  const pickedShown = new Set(ticked(picked, shownIds));
  const selected = requestedShown.filter((p) => pickedShown.has(p._id));
  const full = selected.length >= MAX_BULK;
  const toggle = (id: string, on: boolean) => setPicked((s) => pickOne(s, shownIds, id, on));
  const sum = (f: (p: Payout) => number) => (rows ?? []).reduce((s, p) => s + Math.round(f(p) * 100), 0) / 100;
  const requestedTotal = sum((p) => p.requestedAmount);
  const netTotal = sum((p) => p.netAmount);

  return (
    <Stack>
      <Title order={2}>{t("payouts.title")}</Title>
      <Text size="sm">{t("payouts.intro")}</Text>
      <Group align="flex-end">
        <Select
          label={t("payouts.filterStore")}
          placeholder={t("payouts.allStores")}
          data={stores}
          value={storeId}
          onChange={setStoreId}
          clearable
          searchable
          w={{ base: "100%", xs: 260 }}
          data-testid="filter-store"
          comboboxProps={{ withinPortal: false }}
        />
        <Stack gap={4} maw="100%">
          <Input.Label id="status-filter-label" component="span">
            {t("payouts.filterStatus")}
          </Input.Label>
          <SegmentedControl
            style={{ maxWidth: "100%", overflowX: "auto" }}
            aria-labelledby="status-filter-label"
            value={status}
            onChange={(v) => setStatus(v as Status)}
            data={STATUSES.map((s) => ({ value: s, label: t(`status.${s}` as MessageKey) }))}
            data-testid="queue-status"
          />
        </Stack>
      </Group>
      <OptionalPeriodFilter
        value={range}
        onChange={setRange}
        testId="queue-range"
        byDate={{ label: t("ml.byRequestDate"), testId: "queue-dated" }}
        hint={
          <Text size="xs" c="dimmed">
            {t("ml.rangeSortsByDate")}
          </Text>
        }
      />
      <Group align="flex-end">
        {requestedShown.length > 1 && (
          <Checkbox
            label={requestedShown.length > MAX_BULK ? t("ml.selectAllCapped", { n: MAX_BULK }) : t("bulk.selectAll")}
            checked={allPicked(picked, shownIds)}
            onChange={(e) => {
              const on = e.currentTarget.checked;
              setPicked((s) => pickAll(s, shownIds, on));
            }}
            data-testid="bulk-pick-all"
          />
        )}
        {count && (
          <Text size="sm" data-testid="payout-count" data-count={count.count}>
            {count.capped ? t("queue.countCapped", { n: count.count }) : t("payouts.count", { n: count.count })}
          </Text>
        )}
      </Group>
      {full && (
        <Text size="sm" data-testid="bulk-cap">
          {t("ml.capNote", { n: MAX_BULK })}
        </Text>
      )}
      {selected.length > 0 && (
        <Group data-testid="bulk-actions">
          <BulkDecision kind="approve" payouts={selected} onDone={(n) => (setPicked(new Set()), setDoneText(t("bulk.approved", { n })))} />
          <BulkDecision kind="reject" payouts={selected} onDone={(n) => (setPicked(new Set()), setDoneText(t("bulk.rejected", { n })))} />
        </Group>
      )}
      {doneText && (
        <Alert color="green" role="status" data-testid="bulk-done" withCloseButton onClose={() => setDoneText(null)} closeButtonLabel={t("close")}>
          {doneText}
        </Alert>
      )}
      {skip ? null : rows === undefined ? (
        <Loading />
      ) : rows.length === 0 ? (
        <Text data-testid="payouts-empty">{t("payouts.none")}</Text>
      ) : (
        <DataTable
          striped
          highlightOnHover
          verticalSpacing="sm"
          data-testid="payout-queue"
          columns={["payouts.store", "payouts.owner", "payouts.amounts", "payouts.bank", "payouts.date", "payouts.status", "payouts.actions"]}
          sort={{ fields: dated ? { "payouts.date": "date" } : { "payouts.date": "date", "payouts.amounts": "amount" }, value: bySort, onSort }}
        >
          {rows.map((p) => (
            <Table.Tr key={p._id} data-payout={p._id} data-status={p.status} data-amount={p.requestedAmount.toFixed(2)} data-requested-at={p.requestDate}>
              <Table.Td>
                {p.status === "requested" && (
                  <Checkbox
                    mb={4}
                    aria-label={t("bulk.select", { amount: money(p.requestedAmount), store: p.storeName })}
                    checked={pickedShown.has(p._id)}
                    disabled={full && !pickedShown.has(p._id)}
                    onChange={(e) => toggle(p._id, e.currentTarget.checked)}
                    data-testid="bulk-pick"
                  />
                )}
                <Text fw={600} title={p.storeId}>
                  <UserText>{p.storeName}</UserText>
                </Text>
              </Table.Td>
              <Table.Td>
                <Text>
                  <UserText>{p.storeOwnerName}</UserText>
                </Text>
                <Text size="xs" dir="ltr">
                  {p.storeOwnerPhone}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm">
                  {t("payouts.requested")}: <b>{money(p.requestedAmount)}</b>
                </Text>
                <Text size="sm">
                  {t("payouts.fee")}: {money(p.processingFee)}
                </Text>
                <Text size="sm">
                  {t("payouts.net")}: {money(p.netAmount)}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm" ff="monospace" dir="ltr">
                  {p.bankDetails.IBAN}
                </Text>
                <Text size="sm">
                  <UserText>{p.bankDetails.bankName}</UserText>
                </Text>
                <Text size="sm">
                  <UserText>{p.bankDetails.accountHolderName}</UserText>
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{dateTime(p.requestDate)}</Text>
              </Table.Td>
              <Table.Td>
                <StatusBadge status={p.status} />
              </Table.Td>
              <Table.Td>
                <Actions payout={p} />
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      )}
      {rows && rows.length > 0 && (
        <PageTotals
          rows={rows.length}
          figures={[
            { label: t("ml.requested"), value: money(requestedTotal), key: requestedTotal.toFixed(2) },
            { label: t("ml.net"), value: money(netTotal), key: netTotal.toFixed(2) },
          ]}
          testId="queue-page-total"
        />
      )}
      <Pager pager={pager} page={page ?? undefined} count={count?.count} capped={count?.capped} pageSize={QUEUE_PAGE} testId="queue-pager" />
    </Stack>
  );
}

function Actions({ payout }: { payout: Payout }) {
  const s = payout.status;
  return (
    <Group gap="xs">
      {s === "requested" && <Approve payout={payout} />}
      {s === "requested" && <Reject payout={payout} />}
      {s === "approved" && <Processing payout={payout} />}
      {s === "processing" && <Complete payout={payout} />}
      {(s === "approved" || s === "processing") && <Fail payout={payout} />}
    </Group>
  );
}

function useTitle(key: MessageKey, p: Payout) {
  const { t, money } = useI18n();
  return t(key, { amount: money(p.requestedAmount), store: p.storeName });
}

const optional = (s: string) => (s.trim() === "" ? undefined : s.trim());

function Approve({ payout }: { payout: Payout }) {
  const { t } = useI18n();
  const { identity } = useSession();
  const form = useActionForm({
    initial: { adminNotes: "" },
    mutation: api.admins.payoutOperations.approvePayout,
    args: (v) => ({ payoutId: payout._id, adminUserId: identity.sub, adminNotes: optional(v.adminNotes) }),
  });
  return (
    <ConfirmAction label={t("action.approve")} title={useTitle("action.approve.title", payout)} form={form} testId="approve">
      <Textarea label={`${t("field.notes")} (${t("optional")})`} {...form.input("adminNotes")} />
    </ConfirmAction>
  );
}

function Reject({ payout }: { payout: Payout }) {
  const { t } = useI18n();
  const { identity } = useSession();
  const form = useActionForm({
    initial: { rejectionReason: "" },
    mutation: api.admins.payoutOperations.rejectPayout,
    validate: { rejectionReason: (v) => (v.trim() ? null : t("required")) },
    args: (v) => ({ payoutId: payout._id, adminUserId: identity.sub, rejectionReason: v.rejectionReason.trim() }),
  });
  return (
    <ConfirmAction label={t("action.reject")} title={useTitle("action.reject.title", payout)} form={form} color="red" testId="reject">
      <Textarea label={t("field.reason")} required {...form.input("rejectionReason")} />
    </ConfirmAction>
  );
}

function Processing({ payout }: { payout: Payout }) {
  const { t } = useI18n();
  const { identity } = useSession();
  const form = useActionForm({
    initial: { processingMethod: "bank_transfer", transactionReference: "" },
    mutation: api.admins.payoutOperations.markPayoutAsProcessing,
    args: (v) => ({
      payoutId: payout._id,
      adminUserId: identity.sub,
      processingMethod: v.processingMethod as "bank_transfer" | "manual" | "third_party",
      transactionReference: optional(v.transactionReference),
    }),
  });
  return (
    <ConfirmAction label={t("action.processing")} title={useTitle("action.processing.title", payout)} form={form} testId="processing">
      <Select
        label={t("field.method")}
        data={(["bank_transfer", "manual", "third_party"] as const).map((m) => ({ value: m, label: t(`method.${m}`) }))}
        value={form.values.processingMethod}
        onChange={(v) => v && form.set("processingMethod", v)}
        error={form.fieldError("processingMethod")}
        allowDeselect={false}
        comboboxProps={{ withinPortal: false }}
      />
      <TextInput label={`${t("field.reference")} (${t("optional")})`} {...form.input("transactionReference")} />
    </ConfirmAction>
  );
}

function Complete({ payout }: { payout: Payout }) {
  const { t } = useI18n();
  const { identity } = useSession();
  const form = useActionForm({
    initial: { transactionReference: "" },
    mutation: api.admins.payoutOperations.completePayout,
    args: (v) => ({ payoutId: payout._id, adminUserId: identity.sub, transactionReference: optional(v.transactionReference) }),
  });
  return (
    <ConfirmAction label={t("action.complete")} title={useTitle("action.complete.title", payout)} form={form} color="green" testId="complete">
      <TextInput label={`${t("field.reference")} (${t("optional")})`} {...form.input("transactionReference")} />
    </ConfirmAction>
  );
}

function Fail({ payout }: { payout: Payout }) {
  const { t } = useI18n();
  const { identity } = useSession();
  const form = useActionForm({
    initial: { failureReason: "", restoreBalance: true },
    mutation: api.admins.payoutOperations.markPayoutAsFailed,
    validate: { failureReason: (v) => (v.trim() ? null : t("required")) },
    args: (v) => ({ payoutId: payout._id, adminUserId: identity.sub, failureReason: v.failureReason.trim(), restoreBalance: v.restoreBalance }),
  });
  return (
    <ConfirmAction label={t("action.fail")} title={useTitle("action.fail.title", payout)} form={form} color="red" testId="fail">
      <Textarea label={t("field.reason")} required {...form.input("failureReason")} />
      <Checkbox label={t("field.restoreBalance")} {...form.checkbox("restoreBalance")} />
    </ConfirmAction>
  );
}

// One confirmation for many payouts: the list with their amounts and the
// total; a refusal of any (bulk_refused: nothing changed) lists each refused
// payout with the server's reason.
function BulkDecision({ kind, payouts, onDone }: { kind: "approve" | "reject"; payouts: Payout[]; onDone(n: number): void }) {
  const { t, money } = useI18n();
  const { identity } = useSession();
  const ids = payouts.map((p) => p._id);
  const total = payouts.reduce((s, p) => s + Math.round(p.requestedAmount * 100), 0) / 100;
  const handedOver = payouts.filter((p) => p.handedOver);
  const names = new Map(payouts.map((p) => [p._id, `${p.storeName} ${money(p.requestedAmount)}`]));
  const describe = (r: Refusal) => {
    const refused = r.reason === "bulk_refused" && Array.isArray(r.details.refused) ? (r.details.refused as { payoutId: string; message: string }[]) : null;
    if (!refused) return null;
    return [t("bulk.refused"), ...refused.map((x) => `${names.get(x.payoutId) ?? x.payoutId}: ${x.message}`)].join(" · ");
  };
  const approve = useActionForm({
    initial: { adminNotes: "", confirmHandover: false },
    mutation: api.admins.payoutOperations.approvePayouts,
    args: (v) => ({
      payoutIds: ids,
      adminUserId: identity.sub,
      adminNotes: optional(v.adminNotes),
      confirmHandover: v.confirmHandover ? handedOver.map((p) => p._id) : undefined,
    }),
    describe,
    onDone: (r) => onDone(r?.payouts.length ?? ids.length),
  });
  const reject = useActionForm({
    initial: { rejectionReason: "" },
    mutation: api.admins.payoutOperations.rejectPayouts,
    validate: { rejectionReason: (v) => (v.trim() ? null : t("required")) },
    args: (v) => ({ payoutIds: ids, adminUserId: identity.sub, rejectionReason: v.rejectionReason.trim() }),
    describe,
    onDone: (r) => onDone(r?.payouts.length ?? ids.length),
  });
  const list = (
    <List size="sm" data-testid="bulk-list" data-total={total.toFixed(2)}>
      {payouts.map((p) => (
        <List.Item key={p._id} data-payout={p._id}>
          {t("bulk.item", { store: p.storeName, amount: money(p.requestedAmount) })}
        </List.Item>
      ))}
    </List>
  );
  if (kind === "approve")
    return (
      <ConfirmAction
        label={t("bulk.approve", { n: payouts.length })}
        title={t("bulk.approveTitle", { n: payouts.length, total: money(total) })}
        form={approve}
        color="teal"
        testId="bulk-approve"
      >
        {list}
        {handedOver.length > 0 && <Checkbox label={t("bulk.handedOver")} {...approve.checkbox("confirmHandover")} />}
        <Textarea label={`${t("field.notes")} (${t("optional")})`} {...approve.input("adminNotes")} />
      </ConfirmAction>
    );
  return (
    <ConfirmAction
      label={t("bulk.reject", { n: payouts.length })}
      title={t("bulk.rejectTitle", { n: payouts.length, total: money(total) })}
      form={reject}
      color="red"
      testId="bulk-reject"
    >
      {list}
      <Textarea label={t("field.reason")} required {...reject.input("rejectionReason")} />
    </ConfirmAction>
  );
}
