import { Badge, Card, Group, Input, SegmentedControl, Select, Stack, Table, Text, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useState } from "react";
import { useActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { ConfirmAction } from "../ui/ConfirmAction";
import { OptionalPeriodFilter, periodArgs, type OptionalRange } from "../ui/ListFilters";
import { PageTotals } from "../ui/ListTools";
import { Loading } from "../ui/Loading";
import { Pager, usePager } from "../ui/Pager";
import { OrderNumber, Person, Place } from "../ui/names";
import { RefundAction, RefundSummary } from "../ui/Refunds";
import { useAllStores } from "./stores";

type Order = FunctionReturnType<typeof api.admins.orders.listHeldOrders>["page"][number];

// Held payments: orders whose payment did not match (paymentStatus
// under_review), to confirm or cancel, newest first (or oldest), optionally
// of one store and placed within a period (Dubai days, when "by order date"
// is ticked), a page at a time over the keyset cursors (Pager, "Page n of m"
// from countHeldOrders) with the page's total: the server's filters and
// sort (docs/adr/0179). admins.orders.listHeldOrders answers exactly the
// still-held orders, live: a new held order arrives by itself and a
// decided one leaves the list.
const PAGE = 50;
type HeldSort = "newest" | "oldest";

export default function HeldPayments() {
  const { t, money } = useI18n();
  const stores = useAllStores();
  const [storeId, setStoreId] = useState<string | null>(null);
  const [range, setRange] = useState<OptionalRange>(null);
  const [sort, setSort] = useState<HeldSort>("newest");
  const period = periodArgs(range);
  const filters = { ...(storeId ? { storeId } : {}), ...(period ?? {}) };
  const pager = usePager(JSON.stringify({ ...filters, sort }));
  const skip = period === null;
  const page = useQuery(api.admins.orders.listHeldOrders, skip ? "skip" : { ...filters, sort, paginationOpts: { numItems: PAGE, cursor: pager.cursor } });
  const count = useQuery(api.admins.orders.countHeldOrders, skip ? "skip" : filters);
  const results = page?.page ?? [];
  const total = results.reduce((s, o) => s + Math.round(o.total * 100), 0) / 100;
  return (
    <Stack>
      <Title order={2}>{t("held.title")}</Title>
      <Text size="sm">{t("held.intro")}</Text>
      <Group align="flex-end" wrap="wrap">
        <Select
          label={t("payouts.filterStore")}
          placeholder={t("payouts.allStores")}
          data={(stores ?? []).map((s) => ({ value: s._id, label: s.name }))}
          value={storeId}
          onChange={setStoreId}
          clearable
          searchable
          w={{ base: "100%", xs: 260 }}
          data-testid="held-filter-store"
          comboboxProps={{ withinPortal: false }}
        />
        <Stack gap={4} maw="100%">
          <Input.Label id="held-sort-label" component="span">
            {t("held.sort")}
          </Input.Label>
          <SegmentedControl
            aria-labelledby="held-sort-label"
            value={sort}
            onChange={(v) => setSort(v as HeldSort)}
            data={(["newest", "oldest"] as const).map((v) => ({ value: v, label: t(`held.sort.${v}`) }))}
            data-testid="held-sort"
          />
        </Stack>
      </Group>
      <OptionalPeriodFilter value={range} onChange={setRange} testId="held-range" byDate={{ label: t("held.byDate"), testId: "held-dated" }} />
      {count && (
        <Text size="sm" data-testid="held-count" data-count={count.count}>
          {t(count.capped ? "held.countCapped" : "held.count", { n: count.count })}
        </Text>
      )}
      {skip ? null : page === undefined ? (
        <Loading />
      ) : (
        <Stack data-testid="held-payments">
          {results.map((o) => (
            <HeldOrder key={o._id} order={o} />
          ))}
          {results.length === 0 && <Text data-testid="held-empty">{t("held.none")}</Text>}
          {results.length > 0 && <PageTotals rows={results.length} figures={[{ label: t("ml.orderTotal"), value: money(total), key: total.toFixed(2) }]} testId="held-page-total" />}
          <Pager pager={pager} page={page} count={count?.count} capped={count?.capped} pageSize={PAGE} testId="held-pager" />
        </Stack>
      )}
    </Stack>
  );
}

function HeldOrder({ order: o }: { order: Order }) {
  const { t, money, dateTime } = useI18n();
  const review = o.paymentReview;
  const reasonKey = `held.reason.${review?.reason}` as MessageKey;
  const paid = review ? `${review.currency.toUpperCase()} ${review.amountPaid.toFixed(2)}` : "";
  return (
    <Card withBorder component="article" data-held-row data-order={o._id} aria-labelledby={`held-${o._id}`}>
      <Stack gap="xs">
        <Group justify="space-between">
          <Group gap="xs">
            <Title order={3} size="h5" id={`held-${o._id}`}>
              <bdi>{o.storeName}</bdi>
            </Title>
            <OrderNumber order={o} />
            <Text size="xs" ff="monospace" dir="ltr">
              {o._id}
            </Text>
          </Group>
          <Badge color="orange" variant="light">
            {review ? t(reasonKey) : o.paymentStatus}
          </Badge>
        </Group>
        <Table withRowBorders={false} verticalSpacing={2} w="fit-content">
          <Table.Tbody>
            <Table.Tr>
              <Table.Th>{t("held.date")}</Table.Th>
              <Table.Td>{dateTime(o._creationTime)}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>{t("held.expected")}</Table.Th>
              <Table.Td data-testid="held-expected">{money(review?.expectedAmount ?? o.total)}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>{t("held.paid")}</Table.Th>
              <Table.Td data-testid="held-paid" dir="ltr" style={{ textAlign: "start" }}>
                {review?.currency === "aed" ? money(review.amountPaid) : paid}
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>{t("held.items")}</Table.Th>
              <Table.Td>
                {o.items.length === 0
                  ? "—"
                  : o.items.map((i, n) => (
                      <span key={i.productId}>
                        {n > 0 && ", "}
                        {i.quantity} × <bdi>{i.name}</bdi> ({money(i.lineTotal)})
                      </span>
                    ))}
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>{t("held.delivery")}</Table.Th>
              <Table.Td>
                <Person name={o.customerName} id={o.customerId} />
                <Text size="sm" dir="auto">
                  {o.deliveryAddress.fullAddress}
                </Text>
                <Place address={o.deliveryAddress} />
                <span dir="ltr">{o.deliveryAddress.phoneNumber}</span> · {money(o.deliveryFee)}
              </Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
        {o.items.length === 0 && (
          <Text size="sm" data-testid="held-nothing">
            {t("held.nothing")}
          </Text>
        )}
        <RefundSummary order={o} />
        <Group justify="flex-end">
          {(o.refundableAmount ?? 0) > 0 && <RefundAction order={o} mutation={api.admins.orders.refundOrder} />}
          <Move order={o} status="cancelled" />
          {/* An order whose payment found no items of the store can only be cancelled (the server's rule). */}
          {o.items.length > 0 && <Move order={o} status="confirmed" />}
        </Group>
      </Stack>
    </Card>
  );
}

function Move({ order, status }: { order: Order; status: "confirmed" | "cancelled" }) {
  const { t } = useI18n();
  const form = useActionForm({
    initial: {},
    mutation: api.stores.orders.updateOrderStatus,
    args: () => ({ orderId: order._id, status }),
  });
  const confirm = status === "confirmed";
  return (
    <ConfirmAction
      label={confirm ? t("held.confirm") : t("held.cancel")}
      title={t(confirm ? "held.confirm.title" : "held.cancel.title", { order: order._id, store: order.storeName })}
      form={form}
      color={confirm ? "green" : "red"}
      testId={confirm ? "held-confirm" : "held-cancel"}
    />
  );
}
