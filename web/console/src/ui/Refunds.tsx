import { Alert, Badge, Button, Group, NumberInput, SegmentedControl, Stack, Text, TextInput, Input } from "@mantine/core";
import type { api } from "@marketplace/api";
import type { FunctionReturnType } from "convex/server";
import { useState } from "react";
import { useActionForm, type Refusal } from "../app/action";
import { useI18n, type I18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { FormDialog } from "./FormDialog";

// An order's refunds, as the portal's orders, the console's orders and its
// held payments show them: the refund status and amount refunded, what is
// left to refund, each refund with its status (requested until the payment
// processor confirms it), and the refund action where the caller may use it.

export type RefundableOrder = FunctionReturnType<typeof api.stores.orders.listStoreOrders>["page"][number];
type RefundMutation = typeof api.stores.orders.refundOrder;

/** A short, readable order number: the id's last six characters. */
export const orderNumber = (id: string) => `#${id.slice(-6).toUpperCase()}`;

const REFUND_STATUS_COLORS: Record<string, string> = { partially_refunded: "orange", refunded: "grape" };
const ITEM_COLORS: Record<string, string> = { requested: "blue", succeeded: "green", failed: "red" };

/** The order's refund status, refunded amount, amount left and refunds. */
export function RefundSummary({ order: o }: { order: RefundableOrder }) {
  const { t, money } = useI18n();
  return (
    <Stack gap={4} data-testid="refund-summary" data-refund-status={o.refundStatus ?? "none"} data-refunded={o.refundedAmount.toFixed(2)}>
      {o.refundStatus && (
        <Group gap={6}>
          <Badge color={REFUND_STATUS_COLORS[o.refundStatus] ?? "gray"} variant="light" style={{ minWidth: "max-content" }}>
            {t(`refund.status.${o.refundStatus}` as MessageKey)}
          </Badge>
          <Text size="sm">{t("refund.refunded", { amount: money(o.refundedAmount) })}</Text>
        </Group>
      )}
      {o.refunds.map((r) => (
        <Text size="xs" key={r.refundId} data-refund={r.refundId} data-refund-item-status={r.status}>
          <Badge size="xs" variant="light" color={ITEM_COLORS[r.status] ?? "gray"} component="span" me={4}>
            {r.status === "failed" && r.failureReason ? t("refund.failedBecause", { reason: r.failureReason }) : t(`refund.item.${r.status}` as MessageKey)}
          </Badge>
          <bdi>{money(r.amount)}</bdi> · <bdi>{r.reason}</bdi>
        </Text>
      ))}
      {o.refundableAmount != null && o.refundableAmount > 0 && o.refunds.length > 0 && (
        <Text size="xs">{t("refund.left", { amount: money(o.refundableAmount) })}</Text>
      )}
    </Stack>
  );
}

/** Quantities of each product refunded or reserved by line (failed refunds left out), as the server counts them. */
function refundedQuantities(o: RefundableOrder): Map<string, number> {
  const q = new Map<string, number>();
  for (const r of o.refunds) {
    if (r.status === "failed") continue;
    for (const l of r.lines ?? []) q.set(l.productId, (q.get(l.productId) ?? 0) + l.quantity);
  }
  return q;
}

type Mode = "all" | "amount" | "lines";
const AMOUNT = /^\d+(\.\d{1,2})?$/;

/** A refusal of refundOrder in the user's words, by its details.reason. */
export function describeRefundRefusal(r: Refusal, { t, money, dateTime }: I18n): string | null {
  const d = r.details;
  switch (r.reason) {
    case "refund_window_closed":
      return t("refund.err.refund_window_closed", { until: dateTime(typeof d.refundableUntil === "number" ? d.refundableUntil : null) });
    case "refund_exceeds_payment":
      if (typeof d.quantityLeft === "number") return t("refund.err.refund_exceeds_payment_line", { n: d.quantityLeft });
      return t("refund.err.refund_exceeds_payment", { amount: money(typeof d.refundableAmount === "number" ? d.refundableAmount : 0) });
    case "refund_not_allowed":
    case "dispute_open":
    case "nothing_to_refund":
    case "too_many_refunds":
      return t(`refund.err.${r.reason}` as MessageKey);
  }
  return null;
}

/**
 * The refund button and its dialog: all that is left (the server's default),
 * an amount, or quantities of the order's lines; a reason; what is left to
 * refund shown. The mutation is the caller's (stores.orders.refundOrder in
 * the portal, admins.orders.refundOrder in the console); the server decides
 * and a refusal shows in the user's words. The order's row shows the refund
 * requested at once (live) and refunded when the processor confirms it.
 */
export function RefundAction({ order: o, mutation }: { order: RefundableOrder; mutation: RefundMutation }) {
  const i18n = useI18n();
  const { t, money } = i18n;
  const [opened, setOpened] = useState(false);
  // The refund just asked, noted until the order shows it settled.
  const [done, setDone] = useState<{ refundId: string; amount: number } | null>(null);
  const asked = done && o.refunds.find((r) => r.refundId === done.refundId);
  const left = o.refundableAmount ?? 0;
  const refunded = refundedQuantities(o);
  const lines = o.items.map((it) => ({ ...it, left: Math.max(0, it.quantity - (refunded.get(it.productId) ?? 0)) }));
  const initial: Record<string, string> = { mode: "all", amount: "", reason: "" };
  for (const l of lines) initial[`q_${l.productId}`] = "0";
  const form = useActionForm({
    initial,
    mutation,
    validate: {
      amount: (v, all) => {
        if (all.mode !== "amount") return null;
        if (!AMOUNT.test(String(v).trim()) || Number(v) <= 0) return t("refund.amountBad");
        if (Number(v) > left) return t("refund.aboveLeft", { amount: money(left) });
        return null;
      },
      mode: (v, all) => (v === "lines" && !lines.some((l) => Number(all[`q_${l.productId}`]) > 0) ? t("refund.linesNone") : null),
      reason: (v) => (String(v).trim() ? null : t("required")),
    },
    args: (v) => {
      const base = { orderId: o._id, reason: String(v.reason).trim() };
      if (v.mode === "amount") return { ...base, amount: Number(v.amount) };
      if (v.mode === "lines")
        return {
          ...base,
          lines: lines.filter((l) => Number(v[`q_${l.productId}`]) > 0).map((l) => ({ productId: l.productId, quantity: Number(v[`q_${l.productId}`]) })),
        };
      return base;
    },
    describe: (r) => describeRefundRefusal(r, i18n),
    onDone: (res) => setDone(res ? { refundId: res.refundId, amount: res.amount } : null),
  });
  const close = () => {
    if (form.pending) return;
    setOpened(false);
    form.reset();
  };
  const mode = form.values.mode as Mode;
  return (
    <Stack gap={4}>
      <Button
        size="xs"
        variant="light"
        color="grape"
        onClick={() => {
          setDone(null);
          setOpened(true);
        }}
        data-testid="refund"
        w="fit-content"
      >
        {t("refund.action")}
      </Button>
      {done && (!asked || asked.status === "requested") && (
        <Text size="xs" role="status" data-testid="refund-requested" maw={260}>
          {t("refund.requested", { amount: money(done.amount) })}
        </Text>
      )}
      <FormDialog
        opened={opened}
        onClose={close}
        title={t("refund.title", { id: orderNumber(o._id) })}
        submitLabel={t("refund.submit")}
        form={form}
        color="grape"
        onSubmit={async () => {
          const r = await form.submit();
          if (r !== undefined) close();
        }}
      >
        <Text size="sm" data-testid="refund-figures">
          {t("refund.figures", {
            paid: money(o.amountPaid ?? o.total),
            refunded: money(o.refundedAmount),
            left: money(left),
          })}
        </Text>
        <Stack gap={4}>
          <Input.Label id={`refund-mode-${o._id}`} component="span">
            {t("refund.what")}
          </Input.Label>
          <SegmentedControl
            aria-labelledby={`refund-mode-${o._id}`}
            value={mode}
            onChange={(v) => form.set("mode", v)}
            data={(["all", "amount", "lines"] as const).map((m) => ({ value: m, label: t(`refund.mode.${m}`) }))}
            data-testid="refund-mode"
          />
          {form.fieldError("mode") && (
            <Text size="sm" c="var(--mantine-color-error)" role="alert">
              {form.fieldError("mode")}
            </Text>
          )}
        </Stack>
        {mode === "all" && <Text size="sm">{t("refund.allNote", { amount: money(left) })}</Text>}
        {mode === "amount" && <TextInput label={t("refund.amount")} inputMode="decimal" required dir="ltr" {...form.input("amount")} />}
        {mode === "lines" && (
          <Stack gap="xs">
            <Text size="sm">{t("refund.linesNote")}</Text>
            {lines.map((l) => (
              <NumberInput
                key={l.productId}
                label={t("refund.lineQuantity", { name: l.name, price: money(l.unitPrice), left: l.left })}
                min={0}
                max={l.left}
                allowDecimal={false}
                allowNegative={false}
                disabled={l.left === 0}
                name={`q_${l.productId}`}
                data-product={l.productId}
                value={Number(form.values[`q_${l.productId}`])}
                onChange={(v) => form.set(`q_${l.productId}`, String(v === "" ? 0 : v))}
              />
            ))}
          </Stack>
        )}
        <TextInput label={t("refund.reason")} required {...form.input("reason")} />
        <Alert color="blue" p="xs">
          {t("refund.pending")}
        </Alert>
      </FormDialog>
    </Stack>
  );
}
