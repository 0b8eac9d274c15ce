import { Badge, Card, Group, Stack, Table, Text, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { usePaginatedQuery, useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useCallback, useEffect, useMemo, useState } from "react";
import { useActionForm } from "../app/action";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { ConfirmAction } from "../ui/ConfirmAction";
import { Loading } from "../ui/Loading";

type Order = FunctionReturnType<typeof api.stores.orders.listStoreOrders>["page"][number];

// Held payments: orders whose payment did not match (paymentStatus
// under_review), to confirm or cancel. The public API has no "held orders"
// query, so the screen finds the stores from the administrators' inbox
// (every held order sends a payment_review notice naming its store) and
// lists each such store's pending orders (administrators see held ones),
// keeping the held. All of it is live: a new held order's notice adds its
// store, and a decided order leaves the list.
const NOTICES = 200;

export default function HeldPayments() {
  const { t } = useI18n();
  const notices = usePaginatedQuery(api.notifications.inbox.list, {}, { initialNumItems: NOTICES });
  const storeIds = useMemo(() => {
    const ids = new Set<string>();
    for (const n of notices.results) if (n.type === "payment_review" && n.data.storeId) ids.add(n.data.storeId);
    return [...ids].sort();
  }, [notices.results]);
  return (
    <Stack>
      <Title order={2}>{t("held.title")}</Title>
      <Text size="sm">{t("held.intro")}</Text>
      {notices.status === "LoadingFirstPage" ? (
        <Loading />
      ) : (
        <HeldOrders storeIds={storeIds} />
      )}
    </Stack>
  );
}

function HeldOrders({ storeIds }: { storeIds: string[] }) {
  const { t } = useI18n();
  // One live query per store that had a held order; each reports how many it
  // holds, so the empty state is known once every store answered.
  const [counts, setCounts] = useState<Record<string, number>>({});
  const onCount = useCallback((id: string, n: number) => setCounts((c) => (c[id] === n ? c : { ...c, [id]: n })), []);
  const answered = storeIds.every((id) => counts[id] !== undefined);
  const total = storeIds.reduce((sum, id) => sum + (counts[id] ?? 0), 0);
  return (
    <Stack data-testid="held-payments">
      {storeIds.map((id) => (
        <StoreHeld key={id} storeId={id} onCount={onCount} />
      ))}
      {answered && total === 0 && <Text data-testid="held-empty">{t("held.none")}</Text>}
    </Stack>
  );
}

function StoreHeld({ storeId, onCount }: { storeId: string; onCount(id: string, n: number): void }) {
  const r = useQuery(api.stores.orders.listStoreOrders, { storeId, status: "pending", paginationOpts: { numItems: 100, cursor: null } });
  const held = r?.page.filter((o) => o.paymentStatus === "under_review");
  const n = held?.length;
  useEffect(() => {
    if (n !== undefined) onCount(storeId, n);
  }, [storeId, n, onCount]);
  if (held === undefined) return <Loading />;
  return (
    <>
      {held.map((o) => (
        <HeldOrder key={o._id} order={o} />
      ))}
    </>
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
              {o.storeName}
            </Title>
            <Text size="sm" ff="monospace" dir="ltr">
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
                {o.items.length === 0 ? "—" : o.items.map((i) => `${i.quantity} × ${i.name} (${money(i.lineTotal)})`).join(", ")}
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>{t("held.delivery")}</Table.Th>
              <Table.Td>
                {o.deliveryAddress.fullAddress}, {o.deliveryAddress.area}, {o.deliveryAddress.city} ·{" "}
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
        <Group justify="flex-end">
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
