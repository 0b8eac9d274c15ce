import { SimpleGrid, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { usePaginatedQuery, useQuery } from "convex/react";
import { useActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import { Balances } from "../ui/Balances";
import { DataTable } from "../ui/DataTable";
import { FormCard, useSubmitAndEmpty } from "../ui/FormCard";
import { LedgerTable } from "../ui/LedgerTable";
import { Loading } from "../ui/Loading";
import { PAGE, PagedList } from "../ui/PagedList";
import { Section } from "../ui/Section";
import { StatusBadge } from "../ui/StatusBadge";
import { checkUAEIBAN, normalizeIBAN } from "./iban";
import { useStore } from "./StoreContext";

// The store's wallet, a payout request, its payouts (each status as it
// happens) and its ledger: every part live.
export default function Wallet() {
  const { t } = useI18n();
  const { store } = useStore();
  return (
    <Stack>
      <Title order={2}>
        {t("wallet.title")}: {store.name}
      </Title>
      <StoreBalances storeId={store._id} />
      <RequestPayout storeId={store._id} key={store._id} />
      <PayoutList storeId={store._id} />
      <LedgerTable storeId={store._id} />
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

function RequestPayout({ storeId }: { storeId: string }) {
  const { t, money } = useI18n();
  const config = useQuery(api.admins.platformAdmin.getActivePlatformConfig, {});
  const wallet = useQuery(api.stores.wallet.getWallet, { storeId });
  const ws = config?.walletSettings;
  const form = useActionForm({
    initial: { amount: "", IBAN: "", bankName: "", accountHolderName: "" },
    mutation: api.stores.payouts.requestPayout,
    fields: { "bankDetails.IBAN": "IBAN", "bankDetails.bankName": "bankName", "bankDetails.accountHolderName": "accountHolderName" },
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
      IBAN: (v) => {
        const p = checkUAEIBAN(v);
        return p ? t(`iban.${p}`) : null;
      },
      bankName: (v) => (v.trim() ? null : t("required")),
      accountHolderName: (v) => (v.trim() ? null : t("required")),
    },
    args: (v) => ({
      storeId,
      amount: Number(v.amount),
      bankDetails: { IBAN: normalizeIBAN(v.IBAN), bankName: v.bankName.trim(), accountHolderName: v.accountHolderName.trim() },
    }),
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
    </FormCard>
  );
}

function PayoutList({ storeId }: { storeId: string }) {
  const { t, money, dateTime } = useI18n();
  const pages = usePaginatedQuery(api.stores.payouts.listPayouts, { storeId }, { initialNumItems: PAGE });
  return (
    <Section id="payouts-title" title={t("history.title")}>
      <PagedList pages={pages} empty={t("history.none")}>
        {(results) => (
          <DataTable minWidth={700} data-testid="payout-list" columns={["payouts.date", "payouts.requested", "payouts.net", "payouts.bank", "payouts.status"]}>
            {results.map((p) => (
              <Table.Tr key={p._id} data-payout={p._id} data-status={p.status}>
                <Table.Td>{dateTime(p.requestDate)}</Table.Td>
                <Table.Td>{money(p.requestedAmount)}</Table.Td>
                <Table.Td>{money(p.netAmount)}</Table.Td>
                <Table.Td dir="ltr" ff="monospace">
                  {p.bankDetails.IBAN}
                </Table.Td>
                <Table.Td>
                  <StatusBadge status={p.status} />
                  {p.rejectionReason && <Text size="xs">{p.rejectionReason}</Text>}
                  {p.failureReason && <Text size="xs">{p.failureReason}</Text>}
                </Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
        )}
      </PagedList>
    </Section>
  );
}
