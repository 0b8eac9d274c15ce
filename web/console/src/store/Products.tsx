import { Badge, Button, Card, Checkbox, Group, SimpleGrid, Stack, Switch, Table, Text, TextInput, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useState } from "react";
import { useActionForm, type Refusal } from "../app/action";
import { useI18n } from "../app/i18n";
import { DataTable } from "../ui/DataTable";
import { FormCard, useSubmitAndEmpty } from "../ui/FormCard";
import { FormDialog } from "../ui/FormDialog";
import { Loading } from "../ui/Loading";
import { ChoiceFilter } from "../ui/ListFilters";
import { useSort } from "../ui/ListTools";
import { Pager, usePager } from "../ui/Pager";
import { UserText } from "../ui/UserText";
import { useStore } from "./StoreContext";
import { ScreenTitle } from "../ui/ScreenTitle";

type Product = FunctionReturnType<typeof api.stores.products.listProductsPaginated>["page"][number];

// The store's products: its details (category and city in the chosen
// language), a form to add one, and the list, live, with each product's
// availability switched in place and its name and price edited in a dialog.
// Prices are checked to be positive numbers here; the server checks the rest
// (two decimals at most, the name's length) and its refusal shows at the field.
export default function Products() {
  const { t } = useI18n();
  const { store } = useStore();
  return (
    <Stack>
      <ScreenTitle screen={t("products.title")} name={store.name} />
      <StoreFacts storeId={store._id} />
      <NewProduct storeId={store._id} key={store._id} />
      <ProductList storeId={store._id} />
    </Stack>
  );
}

function StoreFacts({ storeId }: { storeId: string }) {
  const { t, name } = useI18n();
  const store = useQuery(api.stores.catalog.getStore, { storeId });
  const categories = useQuery(api.catalog.categories.listCategories, {});
  const cities = useQuery(api.catalog.locations.listCities, {});
  const areas = useQuery(api.catalog.locations.listAreas, store?.city ? { city: store.city } : "skip");
  if (store === undefined || categories === undefined || cities === undefined) return <Loading />;
  if (store === null) return null;
  // The store names its category, city and area by id; their records have
  // the names (categories and cities in Arabic too).
  const category = categories.find((c) => c._id === store.primaryCategoryId);
  const city = cities.find((c) => c._id === store.city);
  const area = areas?.find((a) => a._id === store.area);
  const facts: [string, string | null, string][] = [
    [t("products.category"), category ? name(category) : null, "category"],
    [t("products.city"), city ? name(city) : null, "city"],
    [t("products.area"), area ? area.name : null, "area"],
  ];
  return (
    <Card withBorder component="section" aria-labelledby="facts-title" data-testid="store-facts">
      <Stack gap="xs">
        <Group gap="sm">
          <Title order={3} id="facts-title">
            {t("products.store")}
          </Title>
          <Badge color={store.isOpen ? "green" : "gray"} variant="light">
            {store.isOpen ? t("products.open") : t("products.closed")}
          </Badge>
        </Group>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          {facts
            .filter(([, v]) => v)
            .map(([label, value, id]) => (
              <div key={id}>
                <Text size="sm">{label}</Text>
                <Text fw={600} data-testid={`store-${id}`}>
                  {value}
                </Text>
              </div>
            ))}
        </SimpleGrid>
      </Stack>
    </Card>
  );
}

const priceOK = (v: string) => {
  const n = Number(v.trim());
  return v.trim() !== "" && Number.isFinite(n) && n > 0;
};

/** The server names fields as its arguments do: name, price. */
const describePrice = (t: (k: "products.priceBad") => string) => (r: Refusal) => (r.field === "price" && r.code === "INVALID_ARGUMENT" ? `${r.message} (${t("products.priceBad")})` : null);

function NewProduct({ storeId }: { storeId: string }) {
  const { t } = useI18n();
  const form = useActionForm({
    initial: { name: "", price: "", isAvailable: true },
    mutation: api.stores.products.createProduct,
    validate: {
      name: (v) => (v.trim() ? null : t("required")),
      price: (v) => (priceOK(v) ? null : t("products.priceBad")),
    },
    args: (v) => ({ storeId, name: v.name.trim(), price: Number(v.price.trim()), isAvailable: v.isAvailable }),
    describe: describePrice(t),
  });
  const sent = useSubmitAndEmpty(form);
  return (
    <FormCard
      id="new-product-title"
      title={t("products.new")}
      form={form}
      onSubmit={sent.onSubmit}
      done={sent.done ? t("products.created") : null}
      submitLabel={t("products.create")}
      submitTestId="create-product"
    >
      <SimpleGrid cols={{ base: 1, md: 3 }}>
        <TextInput label={t("products.name")} required {...form.input("name")} />
        <TextInput label={t("products.price")} inputMode="decimal" required dir="ltr" {...form.input("price")} />
        <Checkbox label={t("products.available")} mt={{ md: 30 }} {...form.checkbox("isAvailable")} />
      </SimpleGrid>
    </FormCard>
  );
}

// Products a page of the list shows (a store keeps at most 1,000).
const PRODUCTS_PAGE = 50;

// The products as the server lists them: a part of the name (any case), one
// availability, in the order added, newest first or by price from the
// headers; numbered pages over its cursors.
function ProductList({ storeId }: { storeId: string }) {
  const { t, money, dateTime } = useI18n();
  const [search, setSearch] = useState("");
  const [available, setAvailable] = useState<string | null>(null);
  const [sort, onSort] = useSort({ by: "added", dir: "asc" }, (by) => (by === "price" ? "asc" : "desc"));
  const q = search.trim().replace(/\s+/g, " ");
  const serverSort = sort.by === "price" ? (sort.dir === "asc" ? "price" : "price_desc") : sort.dir === "asc" ? "added" : "newest";
  const args = { storeId, sort: serverSort as "added" | "newest" | "price" | "price_desc", ...(q.length >= 2 ? { search: q } : {}), ...(available ? { available: available === "yes" } : {}) };
  const pager = usePager(JSON.stringify(args));
  const page = useQuery(api.stores.products.listProductsPaginated, { ...args, paginationOpts: { numItems: PRODUCTS_PAGE, cursor: pager.cursor } });
  const filtered = q.length >= 2 || available !== null;
  return (
    <Stack gap="sm">
      <Group gap="md" align="flex-end" wrap="wrap">
        <TextInput type="search" label={t("lists.productSearch")} value={search} onChange={(e) => setSearch(e.currentTarget.value)} w={{ base: "100%", xs: 260 }} data-testid="product-search" />
        <ChoiceFilter
          label={t("products.available")}
          all={t("lists.all")}
          value={available}
          onChange={setAvailable}
          options={[
            { value: "yes", label: t("products.available") },
            { value: "no", label: t("products.unavailable") },
          ]}
          testId="product-available"
        />
      </Group>
      {page === undefined ? (
        <Loading />
      ) : page.page.length === 0 ? (
        <Text data-testid="products-empty">{filtered ? t("lists.none") : t("products.none")}</Text>
      ) : (
        <>
          <Pager pager={pager} page={page} pageSize={PRODUCTS_PAGE} />
          <DataTable
            striped
            verticalSpacing="sm"
            data-testid="products"
            columns={["products.name", "products.price", "products.available", "products.added", "products.edit"]}
            sort={{ fields: { "products.price": "price", "products.added": "added" }, value: sort, onSort }}
          >
            {page.page.map((p) => (
              <Table.Tr key={p._id} data-product={p._id} data-available={p.isAvailable}>
                <Table.Td>
                  <UserText>{p.name}</UserText>
                </Table.Td>
                <Table.Td>{money(p.price)}</Table.Td>
                <Table.Td>
                  <Availability product={p} />
                </Table.Td>
                <Table.Td>{dateTime(p._creationTime)}</Table.Td>
                <Table.Td>
                  <EditProduct product={p} />
                </Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
        </>
      )}
    </Stack>
  );
}

function Availability({ product: p }: { product: Product }) {
  const { t } = useI18n();
  const form = useActionForm({
    initial: {},
    mutation: api.stores.products.updateProduct,
    args: () => ({ productId: p._id, isAvailable: !p.isAvailable }),
  });
  return (
    <Stack gap={4}>
      <Switch
        checked={p.isAvailable}
        disabled={form.pending}
        onChange={() => void form.submit()}
        label={p.isAvailable ? t("products.available") : t("products.unavailable")}
        aria-label={t("products.availableLabel", { name: p.name })}
        data-testid="availability"
      />
      {form.formError && (
        <Text size="xs" c="red.9" role="alert">
          {form.formError.message}
        </Text>
      )}
    </Stack>
  );
}

function EditProduct({ product: p }: { product: Product }) {
  const { t } = useI18n();
  const [opened, setOpened] = useState(false);
  const form = useActionForm({
    initial: { name: p.name, price: String(p.price) },
    mutation: api.stores.products.updateProduct,
    validate: {
      name: (v) => (v.trim() ? null : t("required")),
      price: (v) => (priceOK(v) ? null : t("products.priceBad")),
    },
    args: (v) => ({ productId: p._id, name: v.name.trim(), price: Number(v.price.trim()) }),
    describe: describePrice(t),
  });
  const open = () => {
    form.reset();
    form.set("name", p.name);
    form.set("price", String(p.price));
    setOpened(true);
  };
  const close = () => !form.pending && setOpened(false);
  return (
    <>
      <Button size="xs" variant="default" onClick={open} data-testid="edit-product">
        {t("products.edit")}
      </Button>
      <FormDialog
        opened={opened}
        onClose={close}
        title={t("products.editTitle", { name: p.name })}
        submitLabel={t("products.save")}
        form={form}
        onSubmit={async () => {
          const r = await form.submit();
          if (r !== undefined) setOpened(false);
        }}
      >
        <TextInput label={t("products.name")} required {...form.input("name")} />
        <TextInput label={t("products.price")} inputMode="decimal" required dir="ltr" {...form.input("price")} />
      </FormDialog>
    </>
  );
}
