import { Alert, Card, Group, List, Select, Stack, Text, TextInput, Textarea, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import { useState } from "react";
import { useActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import { useSession } from "../app/session";
import { Balances } from "../ui/Balances";
import { ConfirmAction } from "../ui/ConfirmAction";
import { LedgerTable } from "../ui/LedgerTable";
import { Loading } from "../ui/Loading";
import { StorePicker, useAllStores, type Store } from "./stores";

const ADJUSTMENTS = ["add_balance", "deduct_balance", "add_pending", "deduct_pending", "move_pending_to_available"] as const;
type Adjustment = (typeof ADJUSTMENTS)[number];

// Wallets: one store's balances, whether they agree with its ledger
// (reconcileWallet), the five adjustments (each with a reason, confirmed),
// and the ledger; all live.
export default function Wallets() {
  const { t } = useI18n();
  const stores = useAllStores();
  const [storeId, setStoreId] = useState<string | null>(null);
  const store = stores?.find((s) => s._id === storeId) ?? null;
  return (
    <Stack>
      <Title order={2}>{t("wallets.title")}</Title>
      <Text size="sm">{t("wallets.intro")}</Text>
      <StorePicker stores={stores} value={storeId} onChange={setStoreId} testId="wallet-store" />
      {store && <StoreWallet store={store} key={store._id} />}
    </Stack>
  );
}

function StoreWallet({ store }: { store: Store }) {
  const { t } = useI18n();
  const wallet = useQuery(api.stores.wallet.getWallet, { storeId: store._id });
  if (wallet === undefined) return <Loading />;
  if (wallet === null) return <Text>{t("wallet.none")}</Text>;
  return (
    <Stack>
      <Balances wallet={wallet} who="admin" />
      <Group>
        <Adjust store={store} walletId={wallet._id} />
      </Group>
      <Reconciliation storeId={store._id} />
      <LedgerTable storeId={store._id} />
    </Stack>
  );
}

function Adjust({ store, walletId }: { store: Store; walletId: string }) {
  const { t } = useI18n();
  const { identity } = useSession();
  const [done, setDone] = useState(false);
  const form = useActionForm({
    initial: { adjustmentType: "add_balance", amount: "", reason: "", adminNotes: "" },
    mutation: api.admins.payoutOperations.adjustWalletBalance,
    validate: {
      amount: (v) => (/^\d+(\.\d{1,2})?$/.test(v.trim()) && Number(v) > 0 ? null : t("wallets.badAmount")),
      reason: (v) => (v.trim() ? null : t("required")),
    },
    args: (v) => ({
      storeId: store._id,
      walletId,
      adjustmentType: v.adjustmentType as Adjustment,
      amount: Number(v.amount),
      reason: v.reason.trim(),
      adminUserId: identity.sub,
      adminNotes: v.adminNotes.trim() === "" ? undefined : v.adminNotes.trim(),
    }),
    onDone: () => setDone(true),
  });
  return (
    <Stack gap="xs">
      <ConfirmAction label={t("wallets.adjust")} title={t("wallets.adjust.title", { store: store.name })} form={form} testId="adjust-wallet">
        <Select
          label={t("wallets.adjustType")}
          data={ADJUSTMENTS.map((a) => ({ value: a, label: t(`wallets.adjust.${a}`) }))}
          value={form.values.adjustmentType}
          onChange={(v) => {
            if (v) form.set("adjustmentType", v);
            setDone(false);
          }}
          error={form.fieldError("adjustmentType")}
          allowDeselect={false}
          comboboxProps={{ withinPortal: false }}
          data-testid="adjust-type"
        />
        <TextInput label={t("wallets.amount")} inputMode="decimal" required {...form.input("amount")} />
        <TextInput label={t("field.reason")} required {...form.input("reason")} />
        <Textarea label={`${t("field.adminNotes")} (${t("optional")})`} {...form.input("adminNotes")} />
      </ConfirmAction>
      {done && (
        <Alert color="green" role="status" data-testid="adjusted">
          {t("wallets.adjusted")}
        </Alert>
      )}
    </Stack>
  );
}

function Reconciliation({ storeId }: { storeId: string }) {
  const { t, money } = useI18n();
  const r = useQuery(api.admins.payoutOperations.reconcileWallet, { storeId });
  return (
    <Card withBorder component="section" aria-labelledby="reconcile-title">
      <Stack gap="xs">
        <Title order={3} id="reconcile-title">
          {t("wallets.reconcile")}
        </Title>
        {r === undefined ? (
          <Loading />
        ) : r === null ? (
          <Text>{t("wallet.none")}</Text>
        ) : r.consistent ? (
          <Alert color="green" data-testid="reconcile" data-consistent="true">
            {t("wallets.consistent", { n: r.transactions })}
          </Alert>
        ) : (
          <Alert color="red" data-testid="reconcile" data-consistent="false" title={t("wallets.inconsistent")}>
            <List size="sm">
              {r.inconsistencies.map((x) => (
                <List.Item key={x}>{x}</List.Item>
              ))}
            </List>
          </Alert>
        )}
        {r && r.unconfirmedEarnings.length > 0 && (
          <>
            <Text fw={600}>{t("wallets.unconfirmed")}</Text>
            <List size="sm">
              {r.unconfirmedEarnings.map((u) => (
                <List.Item key={u.transactionId}>
                  {u.orderId}: {money(u.amount)} ({u.reason})
                </List.Item>
              ))}
            </List>
          </>
        )}
      </Stack>
    </Card>
  );
}
