import { Badge, Card, Group, Select, SimpleGrid, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useEffect, useState } from "react";
import { useActionForm, type ActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { useSession } from "../app/session";
import { ConfirmAction } from "../ui/ConfirmAction";
import { DataTable } from "../ui/DataTable";
import { FormCard } from "../ui/FormCard";
import { FormDialog } from "../ui/FormDialog";
import { Loading } from "../ui/Loading";
import { OptionalPeriodFilter, periodArgs, type OptionalRange } from "../ui/ListFilters";
import { useSort } from "../ui/ListTools";
import { Pager, usePager } from "../ui/Pager";
import { Section } from "../ui/Section";
import { percentOfRate, preview, rateOfPercent, type Config, type Preview as PreviewFigures } from "./commission";
import { describeChanges, operationLabel, type Describe } from "./commissionHistory";
import { StorePicker, useAllStores } from "./stores";

type ActiveConfig = NonNullable<FunctionReturnType<typeof api.admins.platformAdmin.getActivePlatformConfig>>;
const TIERS = ["basic", "premium", "enterprise"] as const;
const AMOUNT = /^\d+(\.\d{1,2})?$/;
const PERCENT = /^\d+(\.\d{1,4})?$/;

// Commission configuration: the defaults (edited, then saved after a
// confirmation), each category's and tier's entry, a preview of an order of
// a store with the defaults as typed (computed here exactly as the server
// does) beside the server's own getCommissionPreview, and the change history.
export default function Commission() {
  const { t } = useI18n();
  const config = useQuery(api.admins.platformAdmin.getActivePlatformConfig, {});
  return (
    <Stack>
      <Title order={2}>{t("comm.title")}</Title>
      <Text size="sm">{t("comm.intro")}</Text>
      {config === undefined ? <Loading /> : config === null ? <Text>{t("comm.none")}</Text> : <Configured config={config} />}
    </Stack>
  );
}

type DefaultsValues = { defaultCommissionRate: string; fixedFeePerOrder: string; minimumCommission: string; maximumCommission: string };

function valuesOf(c: ActiveConfig): DefaultsValues {
  return {
    defaultCommissionRate: percentOfRate(c.defaultCommissionRate),
    fixedFeePerOrder: c.fixedFeePerOrder.toFixed(2),
    minimumCommission: c.minimumCommission.toFixed(2),
    maximumCommission: c.maximumCommission.toFixed(2),
  };
}

function Configured({ config }: { config: ActiveConfig }) {
  const { t } = useI18n();
  const { identity } = useSession();
  const [saved, setSaved] = useState(false);
  const form = useActionForm({
    initial: valuesOf(config),
    mutation: api.admins.platformAdmin.updatePlatformConfig,
    validate: {
      defaultCommissionRate: (v) => (PERCENT.test(v.trim()) ? null : t("comm.rate")),
      fixedFeePerOrder: (v) => (AMOUNT.test(v.trim()) ? null : t("wallets.badAmount")),
      minimumCommission: (v) => (AMOUNT.test(v.trim()) ? null : t("wallets.badAmount")),
      maximumCommission: (v) => (AMOUNT.test(v.trim()) ? null : t("wallets.badAmount")),
    },
    args: (v) => ({
      adminUserId: identity.sub,
      configId: config._id,
      defaultCommissionRate: rateOfPercent(v.defaultCommissionRate),
      fixedFeePerOrder: Number(v.fixedFeePerOrder),
      minimumCommission: Number(v.minimumCommission),
      maximumCommission: Number(v.maximumCommission),
    }),
    onDone: () => setSaved(true),
  });
  // The draft: the defaults as typed, where they read as numbers.
  const v = form.values;
  const draft: Config = {
    ...config,
    defaultCommissionRate: PERCENT.test(v.defaultCommissionRate.trim()) ? rateOfPercent(v.defaultCommissionRate) : config.defaultCommissionRate,
    fixedFeePerOrder: AMOUNT.test(v.fixedFeePerOrder.trim()) ? Number(v.fixedFeePerOrder) : config.fixedFeePerOrder,
    minimumCommission: AMOUNT.test(v.minimumCommission.trim()) ? Number(v.minimumCommission) : config.minimumCommission,
    maximumCommission: AMOUNT.test(v.maximumCommission.trim()) ? Number(v.maximumCommission) : config.maximumCommission,
  };
  return (
    <Stack>
      <Defaults form={form} saved={saved} onEdit={() => setSaved(false)} />
      <CommissionPreview draft={draft} />
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Categories config={config} />
        <Tiers config={config} />
      </SimpleGrid>
      <History configId={config._id} />
    </Stack>
  );
}

function Defaults({ form, saved, onEdit }: { form: ActionForm<DefaultsValues, unknown>; saved: boolean; onEdit(): void }) {
  const { t } = useI18n();
  const [asking, setAsking] = useState(false);
  const field = (key: keyof DefaultsValues, label: MessageKey) => {
    const p = form.input(key);
    return (
      <TextInput
        label={t(label)}
        inputMode="decimal"
        required
        {...p}
        onChange={(e) => {
          p.onChange(e);
          onEdit();
        }}
      />
    );
  };
  return (
    <>
      <FormCard
        id="defaults-title"
        title={t("comm.defaults")}
        form={form}
        formTestId="defaults-form"
        onSubmit={(e) => {
          e.preventDefault();
          setAsking(true);
        }}
        done={saved ? t("comm.saved") : null}
        submitLabel={t("comm.save")}
        submitTestId="save-defaults"
      >
        <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
          {field("defaultCommissionRate", "comm.rate")}
          {field("fixedFeePerOrder", "comm.fixed")}
          {field("minimumCommission", "comm.minimum")}
          {field("maximumCommission", "comm.maximum")}
        </SimpleGrid>
      </FormCard>
      <FormDialog
        opened={asking}
        onClose={() => setAsking(false)}
        title={t("comm.save")}
        submitLabel={t("confirm")}
        onSubmit={() => {
          setAsking(false);
          void form.submit();
        }}
      >
        <Text>{t("comm.save.title")}</Text>
      </FormDialog>
    </>
  );
}

function CommissionPreview({ draft }: { draft: Config }) {
  const { t } = useI18n();
  const stores = useAllStores();
  const [storeId, setStoreId] = useState<string | null>(null);
  const [subtotal, setSubtotal] = useState("100.00");
  const [deliveryFee, setDeliveryFee] = useState("10.00");
  useEffect(() => {
    if (storeId === null && stores && stores.length > 0) setStoreId(stores[0]._id);
  }, [storeId, stores]);
  const store = stores?.find((s) => s._id === storeId);
  const ok = AMOUNT.test(subtotal.trim()) && AMOUNT.test(deliveryFee.trim());
  const server = useQuery(
    api.admins.platformAdmin.getCommissionPreview,
    store && ok ? { storeId: store._id, subtotal: Number(subtotal), deliveryFee: Number(deliveryFee) } : "skip",
  );
  const local = store && ok ? preview(draft, store, Number(subtotal), Number(deliveryFee)) : null;
  return (
    <Section id="preview-title" title={t("comm.preview")}>
      <Text size="sm">{t("comm.previewIntro")}</Text>
      <Group align="flex-start">
        <StorePicker stores={stores} value={storeId} onChange={setStoreId} testId="preview-store" />
        <TextInput
          label={t("comm.subtotal")}
          inputMode="decimal"
          value={subtotal}
          onChange={(e) => setSubtotal(e.currentTarget.value)}
          error={AMOUNT.test(subtotal.trim()) ? null : t("wallets.badAmount")}
          name="previewSubtotal"
        />
        <TextInput
          label={t("comm.deliveryFee")}
          inputMode="decimal"
          value={deliveryFee}
          onChange={(e) => setDeliveryFee(e.currentTarget.value)}
          error={AMOUNT.test(deliveryFee.trim()) ? null : t("wallets.badAmount")}
          name="previewDeliveryFee"
        />
      </Group>
      {store && (
        <Text size="sm">
          {t("comm.tier")}: {t(`comm.tier.${store.tier}` as MessageKey)}
        </Text>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Figures title={t("comm.draft")} p={local} testId="preview-draft" />
        <Figures title={t("comm.server")} p={server ?? null} testId="preview-server" loading={!!store && ok && server === undefined} />
      </SimpleGrid>
    </Section>
  );
}

function Figures({ title, p, testId, loading }: { title: string; p: PreviewFigures | null; testId: string; loading?: boolean }) {
  const { t, money } = useI18n();
  const rows: [MessageKey, string, string][] = p
    ? [
        ["comm.total", money(p.totalAmount), "total"],
        ["comm.effectiveRate", `${percentOfRate(p.commissionRate)}%`, "rate"],
        ["comm.percentage", money(p.commissionBreakdown.percentageCommission), "percentage"],
        ["comm.fixedPart", money(p.commissionBreakdown.fixedFeeAmount), "fixed"],
        ["comm.platform", money(p.platformCommission), "platform"],
        ["comm.earnings", money(p.storeEarnings), "earnings"],
      ]
    : [];
  return (
    <Card withBorder data-testid={testId}>
      <Text fw={700}>{title}</Text>
      {loading ? (
        <Loading />
      ) : (
        p && (
          <>
            <Table withRowBorders={false} verticalSpacing={2}>
              <Table.Tbody>
                {rows.map(([label, value, id]) => (
                  <Table.Tr key={id}>
                    <Table.Th>{t(label)}</Table.Th>
                    <Table.Td data-figure={id}>{value}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            <Group gap="xs">
              {p.commissionBreakdown.minimumApplied && <Badge variant="light">{t("comm.minimumApplied")}</Badge>}
              {p.commissionBreakdown.maximumApplied && <Badge variant="light">{t("comm.maximumApplied")}</Badge>}
            </Group>
          </>
        )
      )}
    </Card>
  );
}

function EntryCells({ e }: { e: { commissionRate?: number | null; fixedFee?: number | null; minimumCommission?: number | null } }) {
  const { t, money } = useI18n();
  const inherit = <Text span size="sm" c="dimmed">{t("comm.inherit")}</Text>;
  return (
    <>
      <Table.Td>{e.commissionRate != null ? `${percentOfRate(e.commissionRate)}%` : inherit}</Table.Td>
      <Table.Td>{e.fixedFee != null ? money(e.fixedFee) : inherit}</Table.Td>
      <Table.Td>{e.minimumCommission != null ? money(e.minimumCommission) : inherit}</Table.Td>
    </>
  );
}

type EntryValues = { categoryId: string; commissionRate: string; fixedFee: string; minimumCommission: string };

function entryFields(form: ActionForm<EntryValues, unknown>, t: (k: MessageKey) => string) {
  return (
    <>
      <TextInput label={t("comm.rate")} inputMode="decimal" required {...form.input("commissionRate")} />
      <TextInput label={`${t("comm.fixed")} (${t("optional")})`} inputMode="decimal" {...form.input("fixedFee")} />
      <TextInput label={`${t("comm.minimum")} (${t("optional")})`} inputMode="decimal" {...form.input("minimumCommission")} />
    </>
  );
}

const optionalAmount = (v: string) => (v.trim() === "" ? undefined : Number(v));
const entryRules = (t: (k: MessageKey) => string) => ({
  commissionRate: (v: string) => (PERCENT.test(v.trim()) ? null : t("comm.rate")),
  fixedFee: (v: string) => (v.trim() === "" || AMOUNT.test(v.trim()) ? null : t("wallets.badAmount")),
  minimumCommission: (v: string) => (v.trim() === "" || AMOUNT.test(v.trim()) ? null : t("wallets.badAmount")),
});

function Categories({ config }: { config: ActiveConfig }) {
  const { t, name } = useI18n();
  const { identity } = useSession();
  const categories = useQuery(api.catalog.categories.listCategories, {});
  const stores = useAllStores();
  // Every category of the catalog, with its own entry or the default rate,
  // and how many stores have it as their primary category; then entries of
  // categories no longer in the catalog.
  const count = (id: string) => (stores === undefined ? undefined : stores.filter((s) => s.primaryCategoryId === id).length);
  const entryOf = (id: string) => config.categoryCommissions.find((e) => e.categoryId === id);
  const rows = [
    ...(categories ?? []).map((c) => ({ id: c._id, name: name(c) as string | undefined, entry: entryOf(c._id), stores: count(c._id) })),
    ...config.categoryCommissions
      .filter((e) => !(categories ?? []).some((c) => c._id === e.categoryId))
      .map((e) => ({ id: e.categoryId, name: undefined, entry: e as typeof e | undefined, stores: count(e.categoryId) })),
  ];
  const form = useActionForm({
    initial: { categoryId: "", commissionRate: "", fixedFee: "", minimumCommission: "" } as EntryValues,
    mutation: api.admins.platformAdmin.addCategoryCommission,
    validate: { ...entryRules(t), categoryId: (v: string) => (v ? null : t("required")) },
    args: (v) => ({
      adminUserId: identity.sub,
      configId: config._id,
      categoryId: v.categoryId,
      commissionRate: rateOfPercent(v.commissionRate),
      fixedFee: optionalAmount(v.fixedFee),
      minimumCommission: optionalAmount(v.minimumCommission),
    }),
  });
  return (
    <Section
      id="categories-title"
      title={t("comm.categories")}
      action={
        <ConfirmAction label={t("comm.setCategory")} title={t("comm.setCategory.title")} form={form} testId="set-category">
          <Select
            label={t("comm.category")}
            data={(categories ?? []).map((c) => ({ value: c._id, label: name(c) }))}
            value={form.values.categoryId || null}
            onChange={(v) => form.set("categoryId", v ?? "")}
            error={form.fieldError("categoryId")}
            searchable
            required
            comboboxProps={{ withinPortal: false }}
          />
          {entryFields(form, t)}
        </ConfirmAction>
      }
    >
      <DataTable data-testid="category-commissions" columns={["comm.category", "comm.rate", "comm.fixed", "comm.minimum", "comm.stores"]}>
        {rows.map((r) => (
          <Table.Tr key={r.id} data-category={r.id} data-entry={r.entry ? "own" : "default"}>
            <Table.Td>
              {r.name !== undefined ? <bdi>{r.name}</bdi> : <Text span size="sm" ff="monospace" dir="ltr">{r.id}</Text>}
              {r.name === undefined && (
                <Text span size="xs" c="dimmed">
                  {" "}
                  ({t("comm.notInCatalog")})
                </Text>
              )}
            </Table.Td>
            {r.entry ? (
              <EntryCells e={r.entry} />
            ) : (
              <>
                <Table.Td>{t("comm.defaultRate", { rate: `${percentOfRate(config.defaultCommissionRate)}%` })}</Table.Td>
                <Table.Td>{t("comm.inherit")}</Table.Td>
                <Table.Td>{t("comm.inherit")}</Table.Td>
              </>
            )}
            <Table.Td data-stores={r.stores ?? ""}>{r.stores === undefined ? "…" : t("comm.storeCount", { n: r.stores })}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </Section>
  );
}

function Tiers({ config }: { config: ActiveConfig }) {
  const { t } = useI18n();
  return (
    <Section id="tiers-title" title={t("comm.tiers")}>
      <DataTable data-testid="tier-commissions" columns={["comm.tier", "comm.rate", "comm.fixed", "comm.minimum", "payouts.actions"]}>
        {TIERS.map((tier) => {
          const e = config.storeTierCommissions.find((x) => x.tierName === tier) ?? {};
          return (
            <Table.Tr key={tier} data-tier={tier}>
              <Table.Td>{t(`comm.tier.${tier}`)}</Table.Td>
              <EntryCells e={e} />
              <Table.Td>
                <EditTier configId={config._id} tier={tier} entry={e} />
              </Table.Td>
            </Table.Tr>
          );
        })}
      </DataTable>
    </Section>
  );
}

function EditTier({ configId, tier, entry }: { configId: string; tier: (typeof TIERS)[number]; entry: { commissionRate?: number | null; fixedFee?: number | null; minimumCommission?: number | null } }) {
  const { t } = useI18n();
  const { identity } = useSession();
  const form = useActionForm({
    initial: {
      categoryId: "",
      commissionRate: entry.commissionRate != null ? percentOfRate(entry.commissionRate) : "",
      fixedFee: entry.fixedFee != null ? entry.fixedFee.toFixed(2) : "",
      minimumCommission: entry.minimumCommission != null ? entry.minimumCommission.toFixed(2) : "",
    } as EntryValues,
    mutation: api.admins.platformAdmin.setTierCommission,
    validate: entryRules(t),
    args: (v) => ({
      adminUserId: identity.sub,
      configId,
      tierName: tier,
      commissionRate: rateOfPercent(v.commissionRate),
      fixedFee: optionalAmount(v.fixedFee),
      minimumCommission: optionalAmount(v.minimumCommission),
    }),
  });
  return (
    <ConfirmAction label={t("comm.editTier")} title={t("comm.editTier.title", { tier: t(`comm.tier.${tier}`) })} form={form} testId={`edit-tier-${tier}`}>
      {entryFields(form, t)}
    </ConfirmAction>
  );
}

const HISTORY_PAGE = 20;

// The changes, newest first unless the date header says otherwise, of a
// period when chosen (the server filters), a page at a time.
function History({ configId }: { configId: string }) {
  const i18n = useI18n();
  const { t, dateTime, name } = i18n;
  const categories = useQuery(api.catalog.categories.listCategories, {});
  const [range, setRange] = useState<OptionalRange>(null);
  const [sort, onSort] = useSort({ by: "changedAt", dir: "desc" });
  const period = periodArgs(range);
  const args = { configId, sort: sort.dir === "asc" ? ("oldest" as const) : ("newest" as const), ...(period ?? {}) };
  const pager = usePager(JSON.stringify(args));
  const page = useQuery(api.admins.platformAdmin.getConfigHistory, period ? { ...args, paginationOpts: { numItems: HISTORY_PAGE, cursor: pager.cursor } } : "skip");
  const d: Describe = {
    t,
    money: i18n.money,
    dateTime,
    categoryName: (id) => {
      const c = categories?.find((x) => x._id === id);
      return c ? name(c) : undefined;
    },
  };
  return (
    <Section id="history-title" title={t("comm.history")}>
      <OptionalPeriodFilter value={range} onChange={setRange} testId="history-range" />
      {period === null ? null : page === undefined ? (
        <Loading />
      ) : page.page.length === 0 ? (
        <Text data-testid="config-history-empty">{t("comm.historyNone")}</Text>
      ) : (
        <Stack gap="sm">
          <Pager pager={pager} page={page} pageSize={HISTORY_PAGE} testId="history-pager" />
          <DataTable
            striped
            data-testid="config-history"
            columns={["comm.changedAt", "comm.changedBy", "comm.operation", "comm.changes"]}
            sort={{ fields: { "comm.changedAt": "changedAt" }, value: sort, onSort }}
          >
            {page.page.map((h) => (
              <Table.Tr key={h._id} data-operation={h.operation}>
                <Table.Td>{dateTime(h.changedAt)}</Table.Td>
                <Table.Td data-changed-by={h.changedBy}>
                  {h.changedByName ? (
                    <>
                      <bdi>{h.changedByName}</bdi>
                      <Text size="xs" c="dimmed" ff="monospace" dir="ltr">
                        {h.changedBy}
                      </Text>
                    </>
                  ) : (
                    <Text span size="sm" ff="monospace" dir="ltr">
                      {h.changedBy}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>{operationLabel(h.operation, d)}</Table.Td>
                <Table.Td>
                  {describeChanges(h.changes, d).map((c) => (
                    <Text size="sm" key={c.field} data-field={c.field}>
                      <bdi>{c.label}</bdi>: <bdi>{c.from}</bdi> → <bdi>{c.to}</bdi>
                    </Text>
                  ))}
                </Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
        </Stack>
      )}
    </Section>
  );
}
