import { Alert, Button, Card, Group, SimpleGrid, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { usePaginatedQuery, useQuery } from "convex/react";
import { useState } from "react";
import { useActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { Loading } from "../ui/Loading";
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
      <Balances storeId={store._id} />
      <RequestPayout storeId={store._id} key={store._id} />
      <PayoutList storeId={store._id} />
      <Ledger storeId={store._id} />
    </Stack>
  );
}

function Balances({ storeId }: { storeId: string }) {
  const { t, money } = useI18n();
  const wallet = useQuery(api.stores.wallet.getWallet, { storeId });
  if (wallet === undefined) return <Loading />;
  if (wallet === null) return <Text>{t("wallet.none")}</Text>;
  const figures: [MessageKey, number, string][] = [
    ["wallet.available", wallet.availableBalance, "available"],
    ["wallet.pending", wallet.pendingBalance, "pending"],
    ["wallet.earnings", wallet.totalEarnings, "earnings"],
    ["wallet.paidOut", wallet.totalPayouts, "paid-out"],
  ];
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }}>
      {figures.map(([label, value, id]) => (
        <Card withBorder key={id}>
          <Text size="sm">{t(label)}</Text>
          <Text size="xl" fw={700} data-testid={`wallet-${id}`}>
            {money(value)}
          </Text>
        </Card>
      ))}
    </SimpleGrid>
  );
}

function RequestPayout({ storeId }: { storeId: string }) {
  const { t, money } = useI18n();
  const config = useQuery(api.admins.platformAdmin.getActivePlatformConfig, {});
  const wallet = useQuery(api.stores.wallet.getWallet, { storeId });
  const [done, setDone] = useState(false);
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
      }
      return null;
    },
    onDone: () => setDone(true),
  });
  const amount = Number(form.values.amount);
  const net = ws && Number.isFinite(amount) && amount > ws.payoutProcessingFee ? amount - ws.payoutProcessingFee : null;
  return (
    <Card withBorder component="section" aria-labelledby="request-title">
      <form
        noValidate
        onSubmit={(e) => {
          setDone(false);
          void form.submit(e).then((r) => r !== undefined && form.reset());
        }}
      >
        <Stack>
          <Title order={3} id="request-title">
            {t("request.title")}
          </Title>
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
          {form.formError && (
            <Alert color="red" role="alert" title={form.formError.code}>
              {form.formError.message}
            </Alert>
          )}
          {done && (
            <Alert color="green" role="status">
              {t("request.done")}
            </Alert>
          )}
          <Group>
            <Button type="submit" loading={form.pending}>
              {t("request.submit")}
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function PayoutList({ storeId }: { storeId: string }) {
  const { t, money, dateTime } = useI18n();
  const { results, status, loadMore } = usePaginatedQuery(api.stores.payouts.listPayouts, { storeId }, { initialNumItems: 20 });
  return (
    <Card withBorder component="section" aria-labelledby="payouts-title">
      <Stack>
        <Title order={3} id="payouts-title">
          {t("history.title")}
        </Title>
        {status === "LoadingFirstPage" ? (
          <Loading />
        ) : results.length === 0 ? (
          <Text>{t("history.none")}</Text>
        ) : (
          <Table.ScrollContainer minWidth={700}>
            <Table data-testid="payout-list">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t("payouts.date")}</Table.Th>
                  <Table.Th>{t("payouts.requested")}</Table.Th>
                  <Table.Th>{t("payouts.net")}</Table.Th>
                  <Table.Th>{t("payouts.bank")}</Table.Th>
                  <Table.Th>{t("payouts.status")}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
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
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {status === "CanLoadMore" && (
          <Button variant="default" onClick={() => loadMore(20)} w="fit-content">
            {t("history.more")}
          </Button>
        )}
      </Stack>
    </Card>
  );
}

function Ledger({ storeId }: { storeId: string }) {
  const { t, money, dateTime } = useI18n();
  const { results, status, loadMore } = usePaginatedQuery(api.stores.wallet.listTransactions, { storeId }, { initialNumItems: 20 });
  return (
    <Card withBorder component="section" aria-labelledby="ledger-title">
      <Stack>
        <Title order={3} id="ledger-title">
          {t("ledger.title")}
        </Title>
        {status === "LoadingFirstPage" ? (
          <Loading />
        ) : results.length === 0 ? (
          <Text>{t("ledger.none")}</Text>
        ) : (
          <Table.ScrollContainer minWidth={700}>
            <Table data-testid="ledger">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t("ledger.date")}</Table.Th>
                  <Table.Th>{t("ledger.type")}</Table.Th>
                  <Table.Th>{t("ledger.amount")}</Table.Th>
                  <Table.Th>{t("ledger.status")}</Table.Th>
                  <Table.Th>{t("ledger.description")}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {results.map((x) => (
                  <Table.Tr key={x._id}>
                    <Table.Td>{dateTime(x._creationTime)}</Table.Td>
                    <Table.Td>{x.type}</Table.Td>
                    <Table.Td>{money(x.amount)}</Table.Td>
                    <Table.Td>{x.status}</Table.Td>
                    <Table.Td>{x.description}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {status === "CanLoadMore" && (
          <Button variant="default" onClick={() => loadMore(20)} w="fit-content">
            {t("history.more")}
          </Button>
        )}
      </Stack>
    </Card>
  );
}
