import { Anchor, Badge, Button, Card, Group as Row, Stack, Text, TextInput, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import { useEffect, useState, type FormEvent, type ReactNode } from "react";
import { useI18n } from "../app/i18n";
import { Link, usePath } from "../app/router";
import { OrderStatusBadge } from "../store/OrderStatusBadge";
import { Loading } from "../ui/Loading";
import { numberOf, OrderNumber, orderPath, payoutNumber, Person, Place } from "../ui/names";
import { StatusBadge } from "../ui/StatusBadge";
import { UserParagraph } from "../ui/UserText";
import { openSearch } from "./SearchBox";

// The administrators' search (/admin/search?q=), fanned out by what was
// typed, each kind asked of the service that owns it (docs/adr/0159): an
// order number (#A1B2C3, or six hexadecimal digits) to admins.orders.listOrders
// (every order with that number: numbers may repeat); an order id to its
// page; anything else of at least two characters to
// admins.customers.searchCustomers (a name's prefix, a phone, an email) and
// catalog.stores.listStores (a name's prefix); an order number or anything
// else also to admins.payoutOperations.searchPayouts (a payout's id, its
// short form, a transaction reference, the payouts of the stores found by
// name) and text to admins.reviewModeration.searchReviews (words of a
// review or its reviewer's name): docs/adr/0169. Results grouped by kind.

const NUMBER = /^#?[0-9a-fA-F]{6}$/;
const ORDER_ID = /^ord_[0-9a-f]{24}$/;

/** The q of the page's address, following navigation (also to the same path). */
function useQueryText(): string {
  usePath();
  const read = () => new URLSearchParams(window.location.search).get("q")?.trim() ?? "";
  const [q, setQ] = useState(read);
  useEffect(() => {
    const update = () => setQ(read());
    window.addEventListener("popstate", update);
    update();
    return () => window.removeEventListener("popstate", update);
  }, []);
  return q;
}

export default function Search() {
  const { t } = useI18n();
  const q = useQueryText();
  const [typed, setTyped] = useState(q);
  useEffect(() => setTyped(q), [q]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (typed.trim()) openSearch(typed);
  };
  const isNumber = NUMBER.test(q);
  const isOrderId = ORDER_ID.test(q);
  const isText = !q.startsWith("#") && !isOrderId && q.length >= 2;
  return (
    <Stack>
      <Title order={2}>{t("search.title")}</Title>
      <Text size="sm">{t("search.intro")}</Text>
      <form role="search" onSubmit={submit} aria-label={t("search.label")}>
        <Row align="flex-end" wrap="wrap">
          <TextInput label={t("search.label")} placeholder={t("search.placeholder")} value={typed} onChange={(e) => setTyped(e.currentTarget.value)} w={320} maw="100%" data-testid="search-input" />
          <Button type="submit" variant="default" data-testid="search-submit">
            {t("search.submit")}
          </Button>
        </Row>
      </form>
      {q !== "" && (
        <Text size="sm" data-testid="search-for">
          {t("search.for", { q: "" }).trim()} <bdi>{q}</bdi>
        </Text>
      )}
      {q !== "" && !isNumber && !isOrderId && !isText && <Text data-testid="search-too-short">{t("search.tooShort")}</Text>}
      {isNumber && <OrdersByNumber number={q} />}
      {isOrderId && (
        <Group title={t("search.orders")} testId="search-orders">
          <Anchor component={Link} to={orderPath("admin", q)} ff="monospace" dir="ltr" data-testid="search-result">
            {q}
          </Anchor>
        </Group>
      )}
      {isText && <Customers query={q} />}
      {isText && <Stores search={q} />}
      {(isNumber || isText) && <Payouts query={q} storeSearch={isText ? q : null} />}
      {isText && <Reviews query={q} />}
    </Stack>
  );
}

function Group({ title, testId, children }: { title: string; testId: string; children: ReactNode }) {
  return (
    <Card withBorder component="section" aria-label={title} data-testid={testId}>
      <Stack gap="xs">
        <Title order={3} size="h5">
          {title}
        </Title>
        {children}
      </Stack>
    </Card>
  );
}

function None() {
  const { t } = useI18n();
  return (
    <Text size="sm" data-testid="search-none">
      {t("search.none")}
    </Text>
  );
}

function OrdersByNumber({ number }: { number: string }) {
  const { t, money, dateTime } = useI18n();
  const found = useQuery(api.admins.orders.listOrders, { number, paginationOpts: { numItems: 20, cursor: null } });
  return (
    <Group title={t("search.orders")} testId="search-orders">
      {found === undefined ? (
        <Loading />
      ) : found.page.length === 0 ? (
        <None />
      ) : (
        found.page.map((o) => (
          <Stack key={o._id} gap={0} data-testid="search-result" data-order={o._id} aria-label={numberOf(o)}>
            <Line>
              <OrderNumber order={o} />
              <OrderStatusBadge status={o.status} />
              <Text size="sm">
                <bdi>{money(o.total)}</bdi>
              </Text>
            </Line>
            <Text size="xs">
              {dateTime(o._creationTime)} · <bdi>{o.storeName}</bdi> · <bdi>{o.customerName ?? o.customerId}</bdi>
            </Text>
            <Place address={o.deliveryAddress} size="xs" />
          </Stack>
        ))
      )}
    </Group>
  );
}

function Line({ children }: { children: ReactNode }) {
  return (
    <div style={{ display: "flex", gap: 8, alignItems: "center", flexWrap: "wrap" }}>
      {children}
    </div>
  );
}

function Customers({ query }: { query: string }) {
  const { t } = useI18n();
  const found = useQuery(api.admins.customers.searchCustomers, { query });
  return (
    <Group title={t("search.customers")} testId="search-customers">
      {found === undefined ? (
        <Loading />
      ) : found.length === 0 ? (
        <None />
      ) : (
        found.map((c) => (
          <Line key={c._id}>
            <Person name={c.name} id={c._id} />
            {c.phone && (
              <Text size="xs" dir="ltr">
                {c.phone}
              </Text>
            )}
            {c.email && (
              <Text size="xs" dir="ltr">
                {c.email}
              </Text>
            )}
            <Anchor component={Link} to={`/admin/orders?customerId=${encodeURIComponent(c._id)}`} size="sm" data-testid="search-customer-orders">
              {t("search.theirOrders")}
            </Anchor>
          </Line>
        ))
      )}
    </Group>
  );
}

function Stores({ search }: { search: string }) {
  const { t } = useI18n();
  const found = useQuery(api.catalog.stores.listStores, { search, paginationOpts: { numItems: 20, cursor: null } });
  return (
    <Group title={t("search.stores")} testId="search-stores">
      {found === undefined ? (
        <Loading />
      ) : found.page.length === 0 ? (
        <None />
      ) : (
        found.page.map((s) => (
          <Line key={s._id}>
            <Text size="sm" fw={600}>
              <bdi>{s.name}</bdi>
            </Text>
            <Anchor component={Link} to={`/admin/orders?storeId=${encodeURIComponent(s._id)}`} size="sm" data-testid="search-store-orders">
              {t("search.itsOrders")}
            </Anchor>
          </Line>
        ))
      )}
    </Group>
  );
}

const SEARCH_SCAN = 2000; // the newest payouts and reviews a search reads (the services' MaxSearchScan)

function Partial() {
  const { t, number } = useI18n();
  return (
    <Text size="xs" c="dimmed" data-testid="search-partial">
      {t("search.partial", { n: number(SEARCH_SCAN) })}
    </Text>
  );
}

function Payouts({ query, storeSearch }: { query: string; storeSearch: string | null }) {
  const { t, money, dateTime } = useI18n();
  // The stores found by name (the same query as the stores' group: asked once).
  const stores = useQuery(api.catalog.stores.listStores, storeSearch ? { search: storeSearch, paginationOpts: { numItems: 20, cursor: null } } : "skip");
  const storeIds = stores?.page.slice(0, 10).map((s) => s._id) ?? [];
  const waiting = storeSearch !== null && stores === undefined;
  const found = useQuery(api.admins.payoutOperations.searchPayouts, waiting ? "skip" : { query, ...(storeIds.length > 0 ? { storeIds } : {}) });
  return (
    <Group title={t("search.payouts")} testId="search-payouts">
      {found === undefined ? (
        <Loading />
      ) : found.payouts.length === 0 ? (
        <None />
      ) : (
        found.payouts.map((p) => (
          <Stack key={p._id} gap={0} data-testid="search-result" data-payout={p._id} data-matched={p.matchedBy}>
            <Line>
              <Anchor component={Link} to={`/admin/all-payouts?storeId=${encodeURIComponent(p.storeId)}`} fw={600} dir="ltr" title={p._id} data-testid="search-payout-link">
                {payoutNumber(p._id)}
              </Anchor>
              <StatusBadge status={p.status} />
              <Text size="sm">
                <bdi>{money(p.requestedAmount)}</bdi>
              </Text>
            </Line>
            <Text size="xs">
              {dateTime(p.requestDate)} · <bdi>{p.storeName}</bdi>
              {p.transactionReference && (
                <>
                  {" · "}
                  {t("search.reference", { ref: p.transactionReference })}
                </>
              )}
            </Text>
          </Stack>
        ))
      )}
      {found?.partial && <Partial />}
    </Group>
  );
}

function Reviews({ query }: { query: string }) {
  const { t, dateTime } = useI18n();
  const found = useQuery(api.admins.reviewModeration.searchReviews, { query });
  return (
    <Group title={t("search.reviews")} testId="search-reviews">
      {found === undefined ? (
        <Loading />
      ) : found.reviews.length === 0 ? (
        <None />
      ) : (
        found.reviews.map((r) => (
          <Stack key={r._id} gap={0} data-testid="search-result" data-review={r._id} data-matched={r.matchedBy}>
            <Line>
              <Text span c="orange.9" fw={700} role="img" aria-label={t("search.rating", { n: r.rating })}>
                {"★".repeat(r.rating)}
                {"☆".repeat(Math.max(0, 5 - r.rating))}
              </Text>
              <Text size="sm">
                <bdi>{r.storeName}</bdi>
              </Text>
              {r.hidden && (
                <Badge color="gray" variant="light">
                  {t("search.hidden")}
                </Badge>
              )}
              <Anchor component={Link} to="/admin/moderation" size="sm" data-testid="search-review-moderation">
                {t("search.moderation")}
              </Anchor>
            </Line>
            <UserParagraph size="sm" lineClamp={2} data-testid="search-review-text">
              {r.title ? `${r.title}: ${r.comment}` : r.comment}
            </UserParagraph>
            <Text size="xs">
              {t("search.reviewBy", { name: r.customerName })} · {dateTime(r._creationTime)}
            </Text>
          </Stack>
        ))
      )}
      {found?.partial && <Partial />}
    </Group>
  );
}
