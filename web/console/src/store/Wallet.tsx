import { Alert, Button, Checkbox, Group, SimpleGrid, Stack, Table, Text, TextInput } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useState } from "react";
import { useActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import { Balances } from "../ui/Balances";
import { FormCard, useSubmitAndEmpty } from "../ui/FormCard";
import { addDays, dayAt, monthOf, periodOf, type DayRange } from "../app/days";
import type { MessageKey } from "../app/messages";
import { FormDialog } from "../ui/FormDialog";
import { CsvButton, DateRangeFilter, PageTotals, SortableTh, StatusFilter, useSort } from "../ui/ListTools";
import { Loading } from "../ui/Loading";
import { Movements } from "../ui/Movements";
import { PAGE } from "../ui/PagedList";
import { Pager, usePager } from "../ui/Pager";
import { Section } from "../ui/Section";
import { StatusBadge } from "../ui/StatusBadge";
import { checkUAEIBAN, normalizeIBAN } from "./iban";
import { useStore } from "./StoreContext";
import { ScreenTitle } from "../ui/ScreenTitle";

type Account = FunctionReturnType<typeof api.stores.payouts.getBankAccount>;

// The store's wallet, its saved bank account, a payout request (filled with
// that account), its payouts (each status as it happens) and its movements:
// every part live.
export default function Wallet() {
  const { t } = useI18n();
  const { store } = useStore();
  return (
    <Stack>
      <ScreenTitle screen={t("wallet.title")} name={store.name} />
      <StoreBalances storeId={store._id} />
      <WalletForms storeId={store._id} key={store._id} />
      <PayoutList storeId={store._id} />
      <Movements storeId={store._id} />
    </Stack>
  );
}

function StoreBalances({ storeId }: { storeId: string }) {
  const { t } = useI18n();
  const wallet = useQuery(api.stores.wallet.getWallet, { storeId });
  if (wallet === undefined) return <Loading />;
  if (wallet === null) return <Text>{t("wallet.none")}</Text>;
  return <Balances wallet={wallet} />;
}

// The saved account and the request form: the form comes filled with the
// account (mounted again when it changes), so it waits for it.
function WalletForms({ storeId }: { storeId: string }) {
  const account = useQuery(api.stores.payouts.getBankAccount, { storeId });
  if (account === undefined) return <Loading />;
  return (
    <>
      <BankAccount storeId={storeId} account={account} />
      <RequestPayout storeId={storeId} account={account} key={account ? `${account.IBAN}:${account.updatedAt}` : "none"} />
    </>
  );
}

const bankFields = { "bankDetails.IBAN": "IBAN", "bankDetails.bankName": "bankName", "bankDetails.accountHolderName": "accountHolderName" } as const;

function bankValidators(t: ReturnType<typeof useI18n>["t"]) {
  return {
    IBAN: (v: string) => {
      const p = checkUAEIBAN(v);
      return p ? t(`iban.${p}`) : null;
    },
    bankName: (v: string) => (v.trim() ? null : t("required")),
    accountHolderName: (v: string) => (v.trim() ? null : t("required")),
  };
}

/** An IBAN shown masked: its country and check digits, then its last four. */
const masked = (iban: string) => `${iban.slice(0, 4)} •••• ${iban.slice(-4)}`;

// The saved payout bank account, masked, and a dialog that changes it.
function BankAccount({ storeId, account }: { storeId: string; account: Account }) {
  const { t, dateTime } = useI18n();
  const [open, setOpen] = useState(false);
  const [saved, setSaved] = useState(false);
  const form = useActionForm({
    initial: { IBAN: account?.IBAN ?? "", bankName: account?.bankName ?? "", accountHolderName: account?.accountHolderName ?? "" },
    mutation: api.stores.payouts.setBankAccount,
    fields: bankFields,
    validate: bankValidators(t),
    args: (v) => ({ storeId, bankDetails: { IBAN: normalizeIBAN(v.IBAN), bankName: v.bankName.trim(), accountHolderName: v.accountHolderName.trim() } }),
    onDone: () => {
      setOpen(false);
      setSaved(true);
    },
  });
  return (
    <Section
      id="bank-title"
      title={t("bank.title")}
      action={
        <Button variant="light" onClick={() => (setSaved(false), setOpen(true))} data-testid="bank-change">
          {t(account ? "bank.change" : "bank.add")}
        </Button>
      }
    >
      {account ? (
        <Stack gap={2} data-testid="bank-account" data-last4={account.ibanLast4}>
          <Text ff="monospace" dir="ltr" ta="start">
            {masked(account.IBAN)}
          </Text>
          <Text size="sm">
            <bdi>{account.bankName}</bdi> · <bdi>{account.accountHolderName}</bdi>
          </Text>
          <Text size="xs" c="dimmed">
            {t("bank.updated", { date: dateTime(account.updatedAt) })}
          </Text>
        </Stack>
      ) : (
        <Text size="sm" data-testid="bank-none">
          {t("bank.none")}
        </Text>
      )}
      {saved && (
        <Alert color="green" role="status" data-testid="bank-saved">
          {t("bank.saved")}
        </Alert>
      )}
      <FormDialog opened={open} onClose={() => setOpen(false)} title={t("bank.dialog")} submitLabel={t("bank.save")} onSubmit={form.submit} form={form}>
        <TextInput label={t("request.iban")} description={t("request.ibanHint")} required dir="ltr" spellCheck={false} {...form.input("IBAN")} data-testid="bank-iban" />
        <TextInput label={t("request.bankName")} required {...form.input("bankName")} data-testid="bank-name" />
        <TextInput label={t("request.holder")} required {...form.input("accountHolderName")} data-testid="bank-holder" />
      </FormDialog>
    </Section>
  );
}

function RequestPayout({ storeId, account }: { storeId: string; account: Account }) {
  const { t, money } = useI18n();
  const config = useQuery(api.admins.platformAdmin.getActivePlatformConfig, {});
  const wallet = useQuery(api.stores.wallet.getWallet, { storeId });
  const ws = config?.walletSettings;
  const form = useActionForm({
    initial: { amount: "", IBAN: account?.IBAN ?? "", bankName: account?.bankName ?? "", accountHolderName: account?.accountHolderName ?? "", save: false },
    mutation: api.stores.payouts.requestPayout,
    fields: bankFields,
    validate: {
      amount: (v) => {
        const n = Number(v);
        if (v.trim() === "" || !Number.isFinite(n) || n <= 0 || !/^\d+(\.\d{1,2})?$/.test(v.trim())) return t("request.amount");
        if (ws && n < ws.minPayoutAmount) return t("request.belowMin", { min: money(ws.minPayoutAmount) });
        if (ws && n > ws.maxPayoutAmount) return t("request.aboveMax", { max: money(ws.maxPayoutAmount) });
        if (ws && n <= ws.payoutProcessingFee) return t("request.notAboveFee", { fee: money(ws.payoutProcessingFee) });
        if (wallet && n > wallet.availableBalance) return t("request.aboveAvailable", { available: money(wallet.availableBalance) });
        return null;
      },
      ...bankValidators(t),
    },
    args: (v) => {
      const bankDetails = { IBAN: normalizeIBAN(v.IBAN), bankName: v.bankName.trim(), accountHolderName: v.accountHolderName.trim() };
      // Saved only when asked and different from the saved account.
      const same = account && account.IBAN === bankDetails.IBAN && account.bankName === bankDetails.bankName && account.accountHolderName === bankDetails.accountHolderName;
      return { storeId, amount: Number(v.amount), bankDetails, saveBankAccount: v.save && !same ? true : undefined };
    },
    describe: (r) => {
      if (!ws) return null;
      switch (r.reason) {
        case "below_minimum_payout":
          return t("request.belowMin", { min: money(ws.minPayoutAmount) });
        case "above_maximum_payout":
          return t("request.aboveMax", { max: money(ws.maxPayoutAmount) });
        case "not_above_fee":
          return t("request.notAboveFee", { fee: money(ws.payoutProcessingFee) });
        case "wallet_in_debt":
          return t("request.inDebt", { amount: money(typeof r.details.debt === "number" ? r.details.debt : 0) });
      }
      return null;
    },
  });
  const sent = useSubmitAndEmpty(form);
  const amount = Number(form.values.amount);
  const net = ws && Number.isFinite(amount) && amount > ws.payoutProcessingFee ? amount - ws.payoutProcessingFee : null;
  return (
    <FormCard
      id="request-title"
      title={t("request.title")}
      form={form}
      onSubmit={sent.onSubmit}
      done={sent.done ? t("request.done") : null}
      submitLabel={t("request.submit")}
    >
      {wallet && wallet.availableBalance < 0 && (
        <Text size="sm" fw={600} c="var(--mantine-color-error)" data-testid="payouts-paused">
          {t("request.inDebt", { amount: money(-wallet.availableBalance) })}
        </Text>
      )}
      {ws && (
        <Text size="sm" data-testid="payout-rules">
          {t("request.rules", { min: money(ws.minPayoutAmount), max: money(ws.maxPayoutAmount), fee: money(ws.payoutProcessingFee) })}
        </Text>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <TextInput
          label={t("request.amount")}
          inputMode="decimal"
          required
          description={net !== null ? t("request.net", { net: money(net) }) : undefined}
          {...form.input("amount")}
        />
        <TextInput label={t("request.iban")} description={t("request.ibanHint")} required dir="ltr" spellCheck={false} {...form.input("IBAN")} />
        <TextInput label={t("request.bankName")} required {...form.input("bankName")} />
        <TextInput label={t("request.holder")} required {...form.input("accountHolderName")} />
      </SimpleGrid>
      {account && (
        <Text size="xs" c="dimmed" data-testid="request-filled">
          {t("request.filled")}
        </Text>
      )}
      <Checkbox label={t("request.saveAccount")} {...form.checkbox("save")} data-testid="request-save-account" />
    </FormCard>
  );
}

const PAYOUT_STATUSES = ["requested", "approved", "processing", "completed", "cancelled", "failed"] as const;

// The store's payouts, a page at a time over the keyset cursors (Pager),
// each page live: of one status, requested within a period (the server's
// filters), sorted by date or amount (a period sorts by date: the server
// refuses an amount sort within one), the page's totals, "Page n of m"
// from countPayouts.
function PayoutList({ storeId }: { storeId: string }) {
  const { t, money, dateTime } = useI18n();
  const [status, setStatus] = useState<string | null>(null);
  const [dated, setDated] = useState(false);
  const [range, setRange] = useState<DayRange>(() => monthOf(Date.now()));
  const [sort, onSort] = useSort({ by: "date", dir: "desc" });
  const period = dated ? periodOf(range) : null;
  const bySort = dated && sort.by === "amount" ? { by: "date", dir: sort.dir } : sort;
  const sortArg = (bySort.by === "amount" ? (bySort.dir === "asc" ? "amount_asc" : "amount_desc") : bySort.dir === "asc" ? "oldest" : "newest") as "newest" | "oldest" | "amount_desc" | "amount_asc";
  const filters = { storeId, ...(status ? { status: status as (typeof PAYOUT_STATUSES)[number] } : {}), ...(period ?? {}) };
  const pager = usePager(JSON.stringify({ ...filters, sortArg }));
  const skip = dated && period === null;
  const page = useQuery(api.stores.payouts.listPayouts, skip ? "skip" : { ...filters, sort: sortArg, paginationOpts: { numItems: PAGE, cursor: pager.cursor } });
  const count = useQuery(api.stores.payouts.countPayouts, skip ? "skip" : filters);
  const rows = page?.page ?? [];
  const fils = (f: (p: (typeof rows)[number]) => number) => rows.reduce((s, p) => s + Math.round(f(p) * 100), 0) / 100;
  const requested = fils((p) => p.requestedAmount);
  const net = fils((p) => p.netAmount);
  // The last twelve months of Dubai days, today included (at most 366 days: the export's limit).
  const [year] = useState(() => periodOf({ from: addDays(dayAt(Date.now()), -364), to: dayAt(Date.now()) })!);
  return (
    <Section
      id="payouts-title"
      title={t("history.title")}
      action={
        <CsvButton
          path={`/api/stores/${encodeURIComponent(storeId)}/payouts.csv?from=${year.from}&to=${year.to}`}
          filename={`payouts-${storeId}.csv`}
          label={t("csv.lastYear")}
          testId="csv-payouts"
        />
      }
    >
      <Group align="flex-end" wrap="wrap">
        <StatusFilter value={status} onChange={setStatus} options={PAYOUT_STATUSES.map((s) => ({ value: s, label: t(`status.${s}` as MessageKey) }))} testId="payouts-status" />
        <Checkbox label={t("ml.byRequestDate")} checked={dated} onChange={(e) => setDated(e.currentTarget.checked)} data-testid="payouts-dated" />
      </Group>
      {dated && <DateRangeFilter value={range} onChange={setRange} testId="payouts-range" />}
      {dated && (
        <Text size="xs" c="dimmed">
          {t("ml.rangeSortsByDate")}
        </Text>
      )}
      {skip ? null : page === undefined ? (
        <Loading />
      ) : rows.length === 0 ? (
        <Text data-testid="payouts-empty">{t("history.none")}</Text>
      ) : (
          <Table data-testid="payout-list" striped>
            <Table.Thead>
              <Table.Tr>
                <SortableTh label={t("payouts.date")} column="date" sort={bySort} onSort={onSort} />
                {dated ? <Table.Th>{t("payouts.requested")}</Table.Th> : <SortableTh label={t("payouts.requested")} column="amount" sort={bySort} onSort={onSort} />}
                <Table.Th visibleFrom="sm">{t("payouts.net")}</Table.Th>
                <Table.Th visibleFrom="md">{t("payouts.bank")}</Table.Th>
                <Table.Th>{t("payouts.status")}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((p) => (
                <Table.Tr key={p._id} data-payout={p._id} data-status={p.status} data-amount={p.requestedAmount.toFixed(2)}>
                  <Table.Td>{dateTime(p.requestDate)}</Table.Td>
                  <Table.Td style={{ whiteSpace: "nowrap" }}>
                    <bdi>{money(p.requestedAmount)}</bdi>
                  </Table.Td>
                  <Table.Td visibleFrom="sm" style={{ whiteSpace: "nowrap" }}>
                    <bdi>{money(p.netAmount)}</bdi>
                  </Table.Td>
                  <Table.Td visibleFrom="md" dir="ltr" ff="monospace">
                    {p.bankDetails.IBAN}
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge status={p.status} />
                    {p.rejectionReason && (
                      <Text size="xs" dir="auto">
                        {p.rejectionReason}
                      </Text>
                    )}
                    {p.failureReason && (
                      <Text size="xs" dir="auto">
                        {p.failureReason}
                      </Text>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
      )}
      {rows.length > 0 && (
        <PageTotals
          rows={rows.length}
          figures={[
            { label: t("ml.requested"), value: money(requested), key: requested.toFixed(2) },
            { label: t("ml.net"), value: money(net), key: net.toFixed(2) },
          ]}
          testId="payouts-page-total"
        />
      )}
      <Pager pager={pager} page={page ?? undefined} count={count?.count} capped={count?.capped} pageSize={PAGE} testId="payouts-pager" />
    </Section>
  );
}
