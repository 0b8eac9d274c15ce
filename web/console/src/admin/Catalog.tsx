import { Badge, Button, Group, SegmentedControl, Select, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import type { FunctionArgs, FunctionReturnType } from "convex/server";
import { useState, type ReactNode } from "react";
import { useActionForm, type ActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { ConfirmAction } from "../ui/ConfirmAction";
import { DataTable } from "../ui/DataTable";
import { FormError } from "../ui/FormError";
import { Loading } from "../ui/Loading";
import { Section } from "../ui/Section";
import { useAllStores, type Store } from "./stores";
import { UserText } from "../ui/UserText";

type City = FunctionReturnType<typeof api.catalog.locations.listCities>[number];
type Area = FunctionReturnType<typeof api.catalog.locations.listAreas>[number];
type Category = FunctionReturnType<typeof api.catalog.categories.listCategories>[number];
const TIERS = ["basic", "premium", "enterprise"] as const;
type Tier = (typeof TIERS)[number];
const text = (v: string) => v.trim();
const orNull = (v: string) => (v.trim() === "" ? null : v.trim());

// The catalog: cities with their areas, categories, and stores (create,
// edit, hand over to another owner); every list live, every form showing the
// server's refusal at its field.
export default function Catalog() {
  const { t } = useI18n();
  const [tab, setTab] = useState<"stores" | "cities" | "categories">("stores");
  return (
    <Stack>
      <Title order={2}>{t("catalog.title")}</Title>
      <SegmentedControl
        w="fit-content"
        value={tab}
        onChange={(v) => setTab(v as typeof tab)}
        data={[
          { value: "stores", label: t("catalog.stores") },
          { value: "cities", label: t("catalog.cities") },
          { value: "categories", label: t("catalog.categories") },
        ]}
        data-testid="catalog-tab"
      />
      {tab === "stores" ? <Stores /> : tab === "cities" ? <Cities /> : <Categories />}
    </Stack>
  );
}

// A form that adds one thing: its fields and the button on one line, the
// server's refusal under them.
function AddForm({ form, testId, submitLabel, children }: { form: ActionForm<any, unknown>; testId: string; submitLabel: string; children: ReactNode }) {
  return (
    <form noValidate onSubmit={(e) => void form.submit(e)} data-testid={testId}>
      <Group align="flex-start">
        {children}
        <Button type="submit" mt={24} loading={form.pending}>
          {submitLabel}
        </Button>
      </Group>
      <FormError form={form} />
    </form>
  );
}

// A record's name and its Arabic name (right to left), a cell each.
function NameCells({ rec }: { rec: { name: string; nameArabic?: string | null } }) {
  return (
    <>
      <Table.Td>
        <UserText>{rec.name}</UserText>
      </Table.Td>
      <Table.Td lang="ar">
        <bdi dir="rtl">{rec.nameArabic}</bdi>
      </Table.Td>
    </>
  );
}

// ---- cities and areas

function Cities() {
  const { t, name } = useI18n();
  const cities = useQuery(api.catalog.locations.listCities, {});
  const [cityId, setCityId] = useState<string | null>(null);
  const form = useActionForm({
    initial: { name: "", nameArabic: "" },
    mutation: api.admins.catalog.createCity,
    validate: { name: (v) => (v.trim() ? null : t("required")), nameArabic: (v) => (v.trim() ? null : t("required")) },
    args: (v) => ({ name: text(v.name), nameArabic: text(v.nameArabic) }),
    onDone: () => form.reset(),
  });
  if (cities === undefined) return <Loading />;
  const city = cities.find((c) => c._id === cityId) ?? null;
  return (
    <Stack>
      <Section id="cities-title" title={t("catalog.cities")}>
        <DataTable data-testid="cities" columns={["catalog.name", "catalog.nameArabic", "payouts.actions"]}>
          {cities.map((c) => (
            <Table.Tr key={c._id} data-city={c._id}>
              <NameCells rec={c} />
              <Table.Td>
                <Group gap="xs">
                  <RenameCity city={c} />
                  <Button size="xs" variant={cityId === c._id ? "filled" : "default"} onClick={() => setCityId(c._id)} data-testid="show-areas">
                    {t("catalog.areasOf", { city: name(c) })}
                  </Button>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
        <AddForm form={form} testId="new-city" submitLabel={t("catalog.addCity")}>
          <TextInput label={t("catalog.name")} required {...form.input("name")} />
          <TextInput label={t("catalog.nameArabic")} required dir="rtl" lang="ar" {...form.input("nameArabic")} />
        </AddForm>
      </Section>
      {city && <Areas city={city} key={city._id} />}
    </Stack>
  );
}

function RenameCity({ city }: { city: City }) {
  const { t } = useI18n();
  const form = useActionForm({
    initial: { name: city.name, nameArabic: city.nameArabic },
    mutation: api.admins.catalog.updateCity,
    validate: { name: (v) => (v.trim() ? null : t("required")), nameArabic: (v) => (v.trim() ? null : t("required")) },
    args: (v) => ({ cityId: city._id, name: text(v.name), nameArabic: text(v.nameArabic) }),
  });
  return (
    <ConfirmAction label={t("catalog.edit")} title={t("catalog.editCity", { city: city.name })} form={form} testId="edit-city">
      <TextInput label={t("catalog.name")} required {...form.input("name")} />
      <TextInput label={t("catalog.nameArabic")} required dir="rtl" lang="ar" {...form.input("nameArabic")} />
    </ConfirmAction>
  );
}

function Areas({ city }: { city: City }) {
  const { t, name } = useI18n();
  const areas = useQuery(api.catalog.locations.listAreas, { city: city._id });
  const form = useActionForm({
    initial: { name: "" },
    mutation: api.admins.catalog.createArea,
    validate: { name: (v) => (v.trim() ? null : t("required")) },
    args: (v) => ({ name: text(v.name), city: city._id }),
    onDone: () => form.reset(),
  });
  return (
    <Section id="areas-title" title={t("catalog.areasOf", { city: name(city) })}>
      {areas === undefined ? (
        <Loading />
      ) : areas.length === 0 ? (
        <Text>{t("catalog.noAreas")}</Text>
      ) : (
        <Table data-testid="areas">
          <Table.Tbody>
            {areas.map((a) => (
              <Table.Tr key={a._id} data-area={a._id}>
                <Table.Td>
                  <UserText>{a.name}</UserText>
                </Table.Td>
                <Table.Td>
                  <RenameArea area={a} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <AddForm form={form} testId="new-area" submitLabel={t("catalog.addArea")}>
        <TextInput label={t("catalog.name")} required {...form.input("name")} />
      </AddForm>
    </Section>
  );
}

function RenameArea({ area }: { area: Area }) {
  const { t } = useI18n();
  const form = useActionForm({
    initial: { name: area.name },
    mutation: api.admins.catalog.updateArea,
    validate: { name: (v) => (v.trim() ? null : t("required")) },
    args: (v) => ({ areaId: area._id, name: text(v.name) }),
  });
  return (
    <ConfirmAction label={t("catalog.edit")} title={t("catalog.editArea", { area: area.name })} form={form} testId="edit-area">
      <TextInput label={t("catalog.name")} required {...form.input("name")} />
    </ConfirmAction>
  );
}

// ---- categories

function Categories() {
  const { t } = useI18n();
  const categories = useQuery(api.catalog.categories.listCategories, {});
  const form = useActionForm({
    initial: { name: "", nameArabic: "" },
    mutation: api.admins.catalog.createCategory,
    validate: { name: (v) => (v.trim() ? null : t("required")) },
    args: (v) => ({ name: text(v.name), nameArabic: orNull(v.nameArabic) }),
    onDone: () => form.reset(),
  });
  return (
    <Section id="categories-title" title={t("catalog.categories")}>
      {categories === undefined ? (
        <Loading />
      ) : (
        <DataTable data-testid="categories" columns={["catalog.name", "catalog.nameArabic"]}>
          {categories.map((c) => (
            <Table.Tr key={c._id} data-category={c._id}>
              <NameCells rec={c} />
            </Table.Tr>
          ))}
        </DataTable>
      )}
      <AddForm form={form} testId="new-category" submitLabel={t("catalog.addCategory")}>
        <TextInput label={t("catalog.name")} required {...form.input("name")} />
        <TextInput label={`${t("catalog.nameArabic")} (${t("optional")})`} dir="rtl" lang="ar" {...form.input("nameArabic")} />
      </AddForm>
    </Section>
  );
}

// ---- stores

type StoreValues = {
  name: string;
  ownerUserId: string;
  ownerName: string;
  ownerPhone: string;
  primaryCategoryId: string;
  tier: string;
  city: string;
  area: string;
};

function Stores() {
  const { t, name } = useI18n();
  const stores = useAllStores();
  const categories = useQuery(api.catalog.categories.listCategories, {});
  const cities = useQuery(api.catalog.locations.listCities, {});
  if (stores === undefined || categories === undefined || cities === undefined) return <Loading />;
  const label = (list: { _id: string; name: string; nameArabic?: string }[], id: string | null) => {
    const x = id ? list.find((v) => v._id === id) : undefined;
    return x ? name(x) : "";
  };
  return (
    <Section id="stores-title" title={t("catalog.stores")} action={<CreateStore categories={categories} cities={cities} />}>
      <DataTable striped data-testid="stores" columns={["catalog.name", "payouts.owner", "comm.category", "comm.tier", "catalog.city", "payouts.status", "payouts.actions"]}>
        {stores.map((s) => (
          <Table.Tr key={s._id} data-store={s._id}>
            <Table.Td fw={600}>
              <UserText>{s.name}</UserText>
            </Table.Td>
            <Table.Td>
              <Text size="sm">
                <UserText>{s.ownerName}</UserText>
              </Text>
              <Text size="xs" ff="monospace" dir="ltr">
                {s.ownerUserId} · {s.ownerPhone}
              </Text>
            </Table.Td>
            <Table.Td>
              <UserText>{label(categories, s.primaryCategoryId)}</UserText>
            </Table.Td>
            <Table.Td>{t(`comm.tier.${s.tier}` as MessageKey)}</Table.Td>
            <Table.Td>
              <UserText>{label(cities, s.city)}</UserText>
            </Table.Td>
            <Table.Td>
              <Badge variant="light" color={s.isOpen ? "green" : "gray"}>
                {s.isOpen ? t("catalog.open") : t("catalog.closed")}
              </Badge>
            </Table.Td>
            <Table.Td>
              <Group gap="xs" wrap="nowrap">
                <EditStore store={s} categories={categories} cities={cities} />
                <HandOver store={s} />
              </Group>
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </Section>
  );
}

function StoreFields({ form, categories, cities, owner }: { form: ActionForm<StoreValues, unknown>; categories: Category[]; cities: City[]; owner: boolean }) {
  const { t, name } = useI18n();
  const areas = useQuery(api.catalog.locations.listAreas, form.values.city ? { city: form.values.city } : "skip");
  const select = (key: keyof StoreValues, label: string, data: { value: string; label: string }[], after?: () => void) => (
    <Select
      label={label}
      data={data}
      value={form.values[key] || null}
      onChange={(v) => {
        form.set(key, v ?? "");
        after?.();
      }}
      error={form.fieldError(key)}
      clearable
      searchable
      comboboxProps={{ withinPortal: false }}
      data-testid={`store-${key}`}
    />
  );
  return (
    <>
      <TextInput label={t("catalog.name")} required {...form.input("name")} />
      {owner && (
        <>
          <TextInput label={t("catalog.ownerUserId")} required dir="ltr" {...form.input("ownerUserId")} />
          <TextInput label={t("catalog.ownerName")} required {...form.input("ownerName")} />
          <TextInput label={t("catalog.ownerPhone")} required dir="ltr" {...form.input("ownerPhone")} />
        </>
      )}
      {select("primaryCategoryId", t("comm.category"), categories.map((c) => ({ value: c._id, label: name(c) })))}
      {select("tier", t("comm.tier"), TIERS.map((x) => ({ value: x, label: t(`comm.tier.${x}`) })))}
      {select("city", t("catalog.city"), cities.map((c) => ({ value: c._id, label: name(c) })), () => form.set("area", ""))}
      {select("area", t("catalog.area"), (areas ?? []).map((a) => ({ value: a._id, label: a.name })))}
    </>
  );
}

function CreateStore({ categories, cities }: { categories: Category[]; cities: City[] }) {
  const { t } = useI18n();
  const required = (v: string) => (v.trim() ? null : t("required"));
  const form = useActionForm({
    initial: { name: "", ownerUserId: "", ownerName: "", ownerPhone: "", primaryCategoryId: "", tier: "basic", city: "", area: "" } as StoreValues,
    mutation: api.admins.catalog.createStore,
    validate: { name: required, ownerUserId: required, ownerName: required, ownerPhone: required },
    args: (v) => ({
      name: text(v.name),
      ownerUserId: text(v.ownerUserId),
      ownerName: text(v.ownerName),
      ownerPhone: text(v.ownerPhone),
      primaryCategoryId: orNull(v.primaryCategoryId),
      tier: (orNull(v.tier) ?? undefined) as Tier | undefined,
      city: orNull(v.city),
      area: orNull(v.area),
    }),
  });
  return (
    <ConfirmAction label={t("catalog.addStore")} title={t("catalog.addStore.title")} form={form} testId="create-store">
      <StoreFields form={form} categories={categories} cities={cities} owner />
    </ConfirmAction>
  );
}

function EditStore({ store, categories, cities }: { store: Store; categories: Category[]; cities: City[] }) {
  const { t } = useI18n();
  const form = useActionForm({
    initial: {
      name: store.name,
      ownerUserId: store.ownerUserId,
      ownerName: store.ownerName ?? "",
      ownerPhone: store.ownerPhone ?? "",
      primaryCategoryId: store.primaryCategoryId ?? "",
      tier: store.tier,
      city: store.city ?? "",
      area: store.area ?? "",
    } as StoreValues,
    mutation: api.admins.catalog.updateStore,
    validate: { name: (v) => (v.trim() ? null : t("required")) },
    // Only what changed: a store keeps references that were valid when set.
    args: (v) => {
      const a: FunctionArgs<typeof api.admins.catalog.updateStore> = { storeId: store._id };
      if (text(v.name) !== store.name) a.name = text(v.name);
      if (v.primaryCategoryId && v.primaryCategoryId !== store.primaryCategoryId) a.primaryCategoryId = v.primaryCategoryId;
      if (v.tier && v.tier !== store.tier) a.tier = v.tier as Tier;
      if (v.city && v.city !== store.city) a.city = v.city;
      if (v.area && (v.area !== store.area || a.city)) {
        a.area = v.area;
        a.city = v.city;
      }
      return a;
    },
  });
  return (
    <ConfirmAction label={t("catalog.edit")} title={t("catalog.editStore", { store: store.name })} form={form} testId="edit-store">
      <StoreFields form={form} categories={categories} cities={cities} owner={false} />
    </ConfirmAction>
  );
}

function HandOver({ store }: { store: Store }) {
  const { t } = useI18n();
  const required = (v: string) => (v.trim() ? null : t("required"));
  const form = useActionForm({
    initial: { ownerUserId: "", ownerName: "", ownerPhone: "" },
    mutation: api.admins.catalog.updateStore,
    validate: { ownerUserId: required, ownerName: required, ownerPhone: required },
    args: (v) => ({ storeId: store._id, ownerUserId: text(v.ownerUserId), ownerName: text(v.ownerName), ownerPhone: text(v.ownerPhone) }),
  });
  return (
    <ConfirmAction
      label={t("catalog.handOver")}
      title={t("catalog.handOver.title", { store: store.name, owner: store.ownerName ?? store.ownerUserId })}
      form={form}
      color="orange"
      testId="hand-over"
    >
      <TextInput label={t("catalog.ownerUserId")} required dir="ltr" {...form.input("ownerUserId")} />
      <TextInput label={t("catalog.ownerName")} required {...form.input("ownerName")} />
      <TextInput label={t("catalog.ownerPhone")} required dir="ltr" {...form.input("ownerPhone")} />
    </ConfirmAction>
  );
}
