import { Alert, Anchor, Card, Checkbox, Group, List, Select, Stack, Table, Text, TextInput, Textarea, Title, UnstyledButton } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import { useState } from "react";
import { useActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { Link, usePath } from "../app/router";
import { useSession } from "../app/session";
import { Balances } from "../ui/Balances";
import { ConfirmAction } from "../ui/ConfirmAction";
import { CsvButton, PageTotals } from "../ui/ListTools";
import { Loading } from "../ui/Loading";
import { Movements } from "../ui/Movements";
import { PAGE } from "../ui/PagedList";
import { Pager, usePager } from "../ui/Pager";
import { orderNumber } from "../ui/Refunds";
import { useAllStores, type Store } from "./stores";

const ADJUSTMENTS = ["add_balance", "deduct_balance", "add_pending", "deduct_pending", "move_pending_to_available"] as const;
type Adjustment = (typeof ADJUSTMENTS)[number];
type SortKey = "available" | "pending" | "disputed" | "updated";
type Sort = `${SortKey}_${"desc" | "asc"}`;

// Wallets: the overview of every store's wallet (sortable, the totals of
// all, only those in debt, CSV), and at /admin/wallets/<storeId> one store's
// balances, whether they agree with its ledger (reconcileWallet), the five
// adjustments (each with a reason, confirmed) and its movements; all live.
export default function Wallets() {
  const path = usePath();
  const storeId = path.startsWith("/admin/wallets/") ? decodeURIComponent(path.slice("/admin/wallets/".length)) : "";
  return storeId ? <OneWallet storeId={storeId} key={storeId} /> : <Overview />;
}

function Overview() {
  const { t, money, dateTime } = useI18n();
  const [sort, setSort] = useState<Sort>("available_desc");
  const [inDebt, setInDebt] = useState(false);
  const args = inDebt ? { inDebt: true, sort: (sort.startsWith("available") ? sort : "available_asc") as Sort } : { sort };
  const pager = usePager(JSON.stringify(args));
  const page = useQuery(api.admins.payoutOperations.listWallets, { ...args, paginationOpts: { numItems: PAGE, cursor: pager.cursor } });
  const totals = useQuery(api.admins.payoutOperations.getWalletTotals, {});
  // The totals count every wallet and those in debt: the pager's "of m".
  const count = totals ? (inDebt ? totals.inDebt : totals.wallets) : undefined;
  const header = (key: SortKey, label: MessageKey, wide = false) => {
    const active = args.sort.startsWith(key);
    const dir = active && args.sort.endsWith("asc") ? "ascending" : active ? "descending" : "none";
    const disabled = inDebt && key !== "available";
    return (
      <Table.Th aria-sort={dir} visibleFrom={wide ? "sm" : undefined}>
        <UnstyledButton
          disabled={disabled}
          onClick={() => setSort(active && args.sort.endsWith("desc") ? `${key}_asc` : `${key}_desc`)}
          data-testid={`sort-${key}`}
          fw={600}
          fz="sm"
        >
          {t(label)} {active ? (dir === "ascending" ? "↑" : "↓") : ""}
        </UnstyledButton>
      </Table.Th>
    );
  };
  const shown = page?.page ?? [];
  const sum = (f: (w: (typeof shown)[number]) => number) => shown.reduce((s, w) => s + Math.round(f(w) * 100), 0) / 100;
  const [available, pending, disputed] = [sum((w) => w.availableBalance), sum((w) => w.pendingBalance), sum((w) => w.disputedBalance)];
  return (
    <Stack>
      <Title order={2}>{t("ov.title")}</Title>
      <Text size="sm">{t("ov.intro")}</Text>
      {totals === undefined ? (
        <Loading />
      ) : (
        totals && (
          <Card withBorder data-testid="wallet-totals" data-available={totals.availableBalance.toFixed(2)} data-pending={totals.pendingBalance.toFixed(2)} data-wallets={totals.wallets}>
            <Text fw={600}>{t("ov.totals", { n: totals.wallets })}</Text>
            <Text size="sm">
              {t("ov.totalsLine", {
                available: money(totals.availableBalance),
                pending: money(totals.pendingBalance),
                disputed: money(totals.disputedBalance),
                inDebt: totals.inDebt,
                debt: money(totals.debt),
              })}
            </Text>
          </Card>
        )
      )}
      <Group align="flex-end" justify="space-between" wrap="wrap">
        <Checkbox label={t("ov.inDebt")} checked={inDebt} onChange={(e) => setInDebt(e.currentTarget.checked)} data-testid="in-debt" />
        <CsvButton path="/api/admin/wallets.csv" filename="wallets.csv" testId="csv-wallets" />
      </Group>
      {page === undefined ? (
        <Loading />
      ) : shown.length === 0 ? (
        <Text data-testid="wallets-empty">{t("ov.none")}</Text>
      ) : (
          <Table striped highlightOnHover data-testid="wallets-overview">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t("ov.store")}</Table.Th>
                {header("available", "ov.available")}
                {header("pending", "ov.pending")}
                {header("disputed", "ov.disputed", true)}
                {header("updated", "ov.updated", true)}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {shown.map((w) => (
                <Table.Tr key={w._id} data-store={w.storeId} data-available={w.availableBalance.toFixed(2)}>
                  <Table.Td>
                    <Anchor component={Link} to={`/admin/wallets/${w.storeId}`} aria-label={t("ov.open", { store: w.storeName })}>
                      <bdi>{w.storeName || w.storeId}</bdi>
                    </Anchor>
                  </Table.Td>
                  <Table.Td c={w.availableBalance < 0 ? "var(--mantine-color-error)" : undefined} style={{ whiteSpace: "nowrap" }}>
                    <bdi>{money(w.availableBalance)}</bdi>
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: "nowrap" }}>
                    <bdi>{money(w.pendingBalance)}</bdi>
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: "nowrap" }} visibleFrom="sm">
                    <bdi>{money(w.disputedBalance)}</bdi>
                  </Table.Td>
                  <Table.Td visibleFrom="sm">
                    <Text size="xs">{dateTime(w.updatedAt)}</Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
      )}
      {shown.length > 0 && (
        <PageTotals
          rows={shown.length}
          figures={[
            { label: t("ml.available"), value: money(available), key: available.toFixed(2) },
            { label: t("ml.pending"), value: money(pending), key: pending.toFixed(2) },
            { label: t("ml.disputed"), value: money(disputed), key: disputed.toFixed(2) },
          ]}
          testId="wallets-page-total"
        />
      )}
      <Pager pager={pager} page={page ?? undefined} count={count} pageSize={PAGE} testId="wallets-pager" />
    </Stack>
  );
}

function OneWallet({ storeId }: { storeId: string }) {
  const { t } = useI18n();
  const stores = useAllStores();
  const store = stores?.find((s) => s._id === storeId);
  return (
    <Stack>
      <Anchor component={Link} to="/admin/wallets" w="fit-content" data-testid="wallets-back">
        {t("ov.back")}
      </Anchor>
      <Title order={2}>
        {t("wallets.title")}: <bdi>{store?.name ?? storeId}</bdi>
      </Title>
      {stores === undefined ? <Loading /> : store ? <StoreWallet store={store} /> : <Text>{t("wallet.none")}</Text>}
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
      <Movements storeId={store._id} />
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
                  {orderNumber(u.orderId)}: {money(u.amount)} (<bdi>{u.reason}</bdi>)
                </List.Item>
              ))}
            </List>
          </>
        )}
      </Stack>
    </Card>
  );
}
