import { Alert, Anchor, Badge, Card, Group, SimpleGrid, Stack, Table, Text, Timeline, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import type { ReactNode } from "react";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { Link } from "../app/router";
import { OrderStatusBadge } from "../store/OrderStatusBadge";
import { ErrorBoundary } from "./ErrorBoundary";
import { Loading } from "./Loading";
import { Actor, numberOf, Person, Place, useArea } from "./names";
import { OrderMoves } from "./OrderMoves";
import { RefundAction, RefundSummary } from "./Refunds";
import OrderNotes from "./OrderNotes";

// The order page (issue 32, item 3), for the store's owner (/store/orders/<id>)
// and administrators (/admin/orders/<id>), live from stores.orders.getOrder:
// the customer and phone, the address by name, the items, the amounts with
// the commission and the store's earnings, the status history (who moved it,
// when), the payment with its refunds and disputes (and, for administrators,
// a held payment's review and who resolved it), and the actions the
// viewer may take: the store's status moves and refunds (administrators
// refund any paid or held order; the store within its window, which the
// server holds). Names, addresses and products are isolated (<bdi>,
// dir="auto"). Its own lazy chunk.

const PAYMENTS = new Set(["paid", "under_review", "pending", "refunded"]);
const REFUNDABLE = new Set(["confirmed", "preparing", "out_for_delivery", "delivered"]);
const DISPUTES = new Set(["open", "won", "lost"]);
const ROLES = new Set(["customer", "store", "administrator", "system"]);

export default function OrderPage({ orderId }: { orderId: string }) {
  const { t } = useI18n();
  const area = useArea();
  // A refusal (an order held for review is NOT_FOUND to its store) shows
  // under the way back.
  return (
    <Stack>
      <Anchor component={Link} to={`/${area}/orders`} data-testid="order-back" w="fit-content">
        {t("orderPage.back")}
      </Anchor>
      <ErrorBoundary resetKey={orderId}>
        <OrderBody orderId={orderId} area={area} />
      </ErrorBoundary>
    </Stack>
  );
}

function OrderBody({ orderId, area }: { orderId: string; area: "admin" | "store" }) {
  const { t } = useI18n();
  const order = useQuery(api.stores.orders.getOrder, { orderId });
  if (order === undefined) return <Loading />;
  if (order === null) {
    return (
      <Alert color="yellow" data-testid="order-not-found">
        {t("orderPage.notFound")}
      </Alert>
    );
  }
  return (
    <Stack data-testid="order-page" data-order={order._id} data-status={order.status}>
      <Group justify="space-between" align="flex-start" wrap="wrap">
        <Stack gap={2}>
          <Title order={2}>
            <span dir="ltr">{t("orderPage.title", { number: numberOf(order) })}</span>
          </Title>
          <Placed order={order} />
        </Stack>
        <OrderStatusBadge status={order.status} />
      </Group>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Customer order={order} />
        <Amounts order={order} />
      </SimpleGrid>
      <Items order={order} />
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <History order={order} />
        <Payment order={order} area={area} />
      </SimpleGrid>
      <Section title={t("orderPage.actions")} testId="order-actions">
        <Group gap="sm" align="flex-start" wrap="wrap">
          <OrderMoves order={order} />
          {area === "admin" && (order.refundableAmount ?? 0) > 0 && <RefundAction order={order} mutation={api.admins.orders.refundOrder} />}
          {area === "store" && order.paymentStatus === "paid" && REFUNDABLE.has(order.status) && (order.refundableAmount ?? 0) > 0 && (
            <RefundAction order={order} mutation={api.stores.orders.refundOrder} />
          )}
        </Group>
      </Section>
      <OrderNotes storeId={order.storeId} orderId={order._id} />
    </Stack>
  );
}

type Order = NonNullable<FunctionReturnType<typeof api.stores.orders.getOrder>>;

function Section({ title, testId, children }: { title: string; testId: string; children: ReactNode }) {
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

function Placed({ order: o }: { order: Order }) {
  const { t, dateTime } = useI18n();
  return (
    <Text size="sm">
      {t("orderPage.placed", { date: dateTime(o._creationTime) })} · <bdi>{o.storeName}</bdi> ·{" "}
      <Text span size="xs" ff="monospace" dir="ltr" title={t("orderPage.id")}>
        {o._id}
      </Text>
    </Text>
  );
}

function Row({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <Table.Tr>
      <Table.Th scope="row" style={{ whiteSpace: "nowrap", verticalAlign: "top" }}>
        {label}
      </Table.Th>
      <Table.Td data-testid={testId}>{children}</Table.Td>
    </Table.Tr>
  );
}

function Customer({ order: o }: { order: Order }) {
  const { t } = useI18n();
  const type = o.deliveryType === "standard" || o.deliveryType === "express" ? t(`orderPage.deliveryType.${o.deliveryType}` as MessageKey) : o.deliveryType;
  return (
    <Section title={t("orderPage.customer")} testId="order-customer">
      <Table withRowBorders={false} verticalSpacing={2}>
        <Table.Tbody>
          <Row label={t("orderPage.customer")} testId="order-customer-name">
            <Person name={o.customerName} id={o.customerId} />
          </Row>
          <Row label={t("orderPage.phone")}>
            <Text size="sm" dir="ltr" style={{ textAlign: "start" }}>
              {o.deliveryAddress.phoneNumber}
            </Text>
          </Row>
          <Row label={t("orderPage.address")} testId="order-address">
            <Text size="sm" dir="auto">
              {o.deliveryAddress.fullAddress}
            </Text>
            <Place address={o.deliveryAddress} />
          </Row>
          <Row label={t("orderPage.deliveryType")}>
            <Text size="sm">{type}</Text>
          </Row>
        </Table.Tbody>
      </Table>
    </Section>
  );
}

function Amounts({ order: o }: { order: Order }) {
  const { t, money, lang } = useI18n();
  const percent = new Intl.NumberFormat(lang === "ar" ? "ar-AE-u-nu-latn" : "en-AE", { style: "percent", maximumFractionDigits: 2 });
  return (
    <Section title={t("orderPage.amounts")} testId="order-amounts">
      <Table withRowBorders={false} verticalSpacing={2}>
        <Table.Tbody>
          <Row label={t("orderPage.subtotal")}>
            <bdi>{money(o.subtotal)}</bdi>
          </Row>
          <Row label={t("orderPage.deliveryFee")}>
            <bdi>{money(o.deliveryFee)}</bdi>
          </Row>
          <Row label={t("orderPage.total")} testId="order-total">
            <Text fw={600} span>
              <bdi>{money(o.total)}</bdi>
            </Text>
          </Row>
          {o.platformCommission != null && (
            <Row label={t("orderPage.commission", { rate: percent.format(o.commissionRate ?? 0) })} testId="order-commission">
              <bdi>{money(o.platformCommission)}</bdi>
              {(o.commissionFixedFee ?? 0) > 0 && (
                <Text size="xs" span>
                  {" "}
                  ({t("orderPage.fixedFee", { fee: money(o.commissionFixedFee ?? 0) })})
                </Text>
              )}
            </Row>
          )}
          {o.storeEarnings != null && (
            <Row label={t("orderPage.earnings")} testId="order-earnings">
              <bdi>{money(o.storeEarnings)}</bdi>
            </Row>
          )}
        </Table.Tbody>
      </Table>
    </Section>
  );
}

function Items({ order: o }: { order: Order }) {
  const { t, money, number } = useI18n();
  return (
    <Section title={t("orderPage.items")} testId="order-items">
      {o.items.length === 0 ? (
        <Text size="sm">—</Text>
      ) : (
        <Stack gap={4}>
          {o.items.map((it) => (
            <Group key={it.productId} justify="space-between" wrap="nowrap" gap="sm" data-item={it.productId}>
              <Text size="sm">
                {number(it.quantity)} × <bdi>{it.name}</bdi>{" "}
                <Text span size="xs">
                  (<bdi>{money(it.unitPrice)}</bdi>)
                </Text>
              </Text>
              <Text size="sm" style={{ whiteSpace: "nowrap" }}>
                <bdi>{money(it.lineTotal)}</bdi>
              </Text>
            </Group>
          ))}
        </Stack>
      )}
    </Section>
  );
}

function History({ order: o }: { order: Order }) {
  const { t, dateTime } = useI18n();
  return (
    <Section title={t("orderPage.timeline")} testId="order-timeline">
      <Timeline active={o.statusHistory.length - 1} bulletSize={14} lineWidth={2}>
        {o.statusHistory.map((h, i) => (
          <Timeline.Item key={i} title={t(`order.status.${h.status}` as MessageKey)} data-status={h.status} data-role={h.role ?? ""}>
            <Text size="xs">
              <bdi>{dateTime(h.at)}</bdi>
              {h.role && ROLES.has(h.role) && ` · ${t(`orderPage.by.${h.role}` as MessageKey)}`}
            </Text>
            {h.by && h.role !== "system" && <Actor id={h.by} name={h.byName} />}
          </Timeline.Item>
        ))}
      </Timeline>
    </Section>
  );
}

const HELD = new Set(["amount_mismatch", "currency_mismatch", "cart_empty"]);

function Payment({ order: o, area }: { order: Order; area: "admin" | "store" }) {
  const { t, money, dateTime } = useI18n();
  // A held payment's review: why, and the administrator who resolved it
  // (administrators only; its name is theirs to see: docs/adr/0168).
  const review = area === "admin" ? o.paymentReview : null;
  return (
    <Section title={t("orderPage.payment")} testId="order-payment">
      <Table withRowBorders={false} verticalSpacing={2}>
        <Table.Tbody>
          <Row label={t("orderPage.paymentStatus")}>
            <Text size="sm">{PAYMENTS.has(o.paymentStatus) ? t(`payment.${o.paymentStatus}` as MessageKey) : o.paymentStatus}</Text>
          </Row>
          {o.amountPaid != null && (
            <Row label={t("orderPage.paid")}>
              <bdi>{money(o.amountPaid)}</bdi>
            </Row>
          )}
          {area === "admin" && (
            <Row label={t("orderPage.intent")}>
              <Text size="xs" ff="monospace" dir="ltr">
                {o.paymentIntentId}
              </Text>
            </Row>
          )}
          {review && (
            <Row label={t("names.heldReview")} testId="order-held">
              <Text size="sm">{HELD.has(review.reason) ? t(`held.reason.${review.reason}` as MessageKey) : review.reason}</Text>
            </Row>
          )}
          {review && (
            <Row label={t("names.heldResolvedBy")} testId="order-held-resolved">
              {review.resolvedBy ? (
                <>
                  <Actor id={review.resolvedBy} name={review.resolvedByName} />
                  {review.resolvedAt != null && (
                    <Text size="xs">
                      <bdi>{dateTime(review.resolvedAt)}</bdi>
                    </Text>
                  )}
                </>
              ) : (
                <Text size="sm">{t("names.heldUnresolved")}</Text>
              )}
            </Row>
          )}
        </Table.Tbody>
      </Table>
      <Title order={4} size="h6">
        {t("orderPage.refunds")}
      </Title>
      <RefundSummary order={o} />
      <Title order={4} size="h6">
        {t("orderPage.disputes")}
      </Title>
      {(o.disputes ?? []).length === 0 ? (
        <Text size="sm">{t("orderPage.noDisputes")}</Text>
      ) : (
        <Stack gap={2} data-testid="order-disputes">
          {(o.disputes ?? []).map((d) => (
            <Group key={d.disputeId} gap="xs">
              <Text size="sm">
                <bdi>{d.currency === "aed" ? money(d.amount) : `${d.currency.toUpperCase()} ${d.amount.toFixed(2)}`}</bdi>
              </Text>
              <Badge variant="light" color={d.status === "lost" ? "red" : d.status === "won" ? "green" : "orange"}>
                {DISPUTES.has(d.status) ? t(`orderPage.dispute.${d.status}` as MessageKey) : d.status}
              </Badge>
            </Group>
          ))}
        </Stack>
      )}
    </Section>
  );
}
