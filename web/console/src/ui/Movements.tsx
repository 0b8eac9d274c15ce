import { Badge, Checkbox, Group, Select, Stack, Table, Text } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useState } from "react";
import { monthOf, periodOf, type DayRange } from "../app/days";
import { useI18n, type I18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { DateRangeFilter, PageTotals, SortableTh, useSort } from "./ListTools";
import { PAGE } from "./PagedList";
import { Pager, usePager } from "./Pager";
import { orderNumber } from "./Refunds";
import { Section } from "./Section";
import { StatusBadge } from "./StatusBadge";
import { Loading } from "./Loading";
import { Actor } from "./names";

export type Movement = FunctionReturnType<typeof api.stores.wallet.listStatementEntries>["page"][number];

// The kinds whose description is the administrator's reason (user text).
export const BY_ADMIN = new Set(["add_balance", "deduct_balance", "add_pending", "deduct_pending", "move_pending_to_available"]);
// The kinds a store's movements can be filtered by (the statement's and the adjustments').
const KINDS = ["earning", "release", "payout_request", "payout_returned", "refund", "dispute_hold", "dispute_release", "dispute_loss", "dispute_fee", "add_balance", "deduct_balance", "add_pending", "deduct_pending", "move_pending_to_available", "carried_forward", "unrecorded_change"] as const;
const WITH_ORDER = new Set(["earning", "refund", "dispute_hold", "dispute_release", "dispute_loss", "dispute_fee"]);

/** A movement's label in the viewer's language, from its kind and references. */
export function movementLabel(m: Pick<Movement, "kind" | "orderId">, t: I18n["t"]): string {
  const order = m.orderId ? orderNumber(m.orderId) : "";
  if (m.kind === "move_pending_to_available") return t("mv.early");
  if (m.kind === "release") return order ? t("mv.release", { order }) : t("mv.releaseAny");
  if (WITH_ORDER.has(m.kind) && order) return t(`mv.${m.kind}` as MessageKey, { order });
  const key = `mv.${m.kind}` as MessageKey;
  const s = t(key);
  return s === key || WITH_ORDER.has(m.kind) ? t("mv.other", { kind: m.kind }) : s;
}

// A store's movements (stores.wallet.listStatementEntries), a page at a
// time over the keyset cursors (Pager), each page live, newest first (or
// oldest: the date header sorts), of one kind and within a period when
// chosen (the server's filters), with the page's net change: every change of its balances, an administrator's early release
// included, each labelled from its kind and references in the viewer's
// language, its signed change (and of which balance), the running balance
// after it (red and called a debt below zero), a payout's status as the
// payout has it now, an earning's release date, an adjustment's reason as
// the administrator typed it and, to administrators, who made it (by name
// with the id beneath, the id alone where no name was recorded).
export function Movements({ storeId }: { storeId: string }) {
  const { t, money, signedMoney, dateTime } = useI18n();
  const [kind, setKind] = useState<string | null>(null);
  const [dated, setDated] = useState(false);
  const [range, setRange] = useState<DayRange>(() => monthOf(Date.now()));
  const [sort, onSort] = useSort({ by: "date", dir: "desc" });
  const period = dated ? periodOf(range) : null;
  const filters = { storeId, ...(kind ? { kind } : {}), ...(period ?? {}), sort: sort.dir === "asc" ? ("oldest" as const) : ("newest" as const) };
  const pager = usePager(JSON.stringify(filters));
  const skip = dated && period === null;
  const page = useQuery(api.stores.wallet.listStatementEntries, skip ? "skip" : { ...filters, paginationOpts: { numItems: PAGE, cursor: pager.cursor } });
  const results = page?.page ?? [];
  const net = results.reduce((s, m) => s + Math.round(m.amount * 100), 0) / 100;
  const now = Date.now();
  return (
    <Section id="movements-title" title={t("mv.title")}>
      <Text size="sm">{t("mv.intro")}</Text>
      <Group align="flex-end" wrap="wrap">
        <Select
          label={t("ml.kind")}
          data={[{ value: "", label: t("ml.allKinds") }, ...KINDS.map((k) => ({ value: k, label: t(`ml.kind.${k}` as MessageKey) }))]}
          value={kind ?? ""}
          onChange={(v) => setKind(v ? v : null)}
          allowDeselect={false}
          w={{ base: "100%", xs: 260 }}
          data-testid="movements-kind"
        />
        <Checkbox label={t("ml.byDate")} checked={dated} onChange={(e) => setDated(e.currentTarget.checked)} data-testid="movements-dated" />
      </Group>
      {dated && <DateRangeFilter value={range} onChange={setRange} testId="movements-range" />}
      {skip ? null : page === undefined ? (
        <Loading />
      ) : results.length === 0 ? (
        <Text data-testid="movements-empty">{t("mv.none")}</Text>
      ) : (
          <Table data-testid="movements" striped>
            <Table.Thead>
              <Table.Tr>
                <SortableTh label={t("mv.date")} column="date" sort={sort} onSort={onSort} />
                <Table.Th>{t("mv.what")}</Table.Th>
                <Table.Th>{t("mv.change")}</Table.Th>
                <Table.Th>{t("mv.balance")}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
            {results.map((m) => {
              const parts: string[] = [];
              if (m.availableChange !== 0) parts.push(t("mv.parts.available", { amount: signedMoney(m.availableChange) }));
              if (m.pendingChange !== 0) parts.push(t("mv.parts.pending", { amount: signedMoney(m.pendingChange) }));
              if (m.disputedChange !== 0) parts.push(t("mv.parts.disputed", { amount: signedMoney(m.disputedChange) }));
              return (
                <Table.Tr
                  key={m.seq}
                  data-seq={m.seq}
                  data-kind={m.kind}
                  data-amount={m.amount.toFixed(2)}
                  data-available-change={m.availableChange.toFixed(2)}
                  data-pending-change={m.pendingChange.toFixed(2)}
                  data-balance={m.balance.toFixed(2)}
                >
                  <Table.Td>
                    <Text size="xs">{dateTime(m.at)}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Stack gap={2}>
                      <Group gap="xs" wrap="wrap">
                        <Text size="sm" fw={600} data-testid="movement-label">
                          {movementLabel(m, t)}
                        </Text>
                        {m.payoutId && <StatusBadge status={m.status} />}
                      </Group>
                      {BY_ADMIN.has(m.kind) && m.description && (
                        <Text size="xs" dir="auto" data-testid="movement-reason">
                          {t("mv.reason")}: <bdi>{m.description}</bdi>
                        </Text>
                      )}
                      {/* Who adjusted: given to administrators only (docs/adr/0168). */}
                      {m.adjustedBy && (
                        <div data-testid="movement-adjusted-by">
                          <Actor id={m.adjustedBy} name={m.adjustedByName} />
                        </div>
                      )}
                      {/* Held until its release time while it still holds money
                          (status "held"); released on it once that time has passed.
                          An earning taken early (an early release, a refund) holds
                          nothing: no line. */}
                      {m.kind === "earning" && m.releaseAt != null && (m.status === "held" || m.releaseAt <= now) && (
                        <Text size="xs" data-testid="movement-release">
                          {t(m.status === "held" ? "mv.heldUntil" : "mv.releasedOn", { date: dateTime(m.releaseAt) })}
                        </Text>
                      )}
                      {m.amount !== 0 && parts.length > 1 ? (
                        <Text size="xs" c="dimmed">
                          <bdi>{parts.join(" · ")}</bdi>
                        </Text>
                      ) : null}
                    </Stack>
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: "nowrap" }} c={m.amount < 0 ? "var(--mantine-color-error)" : undefined}>
                    {/* A move between balances (an early release) changes no total: its parts are its change. */}
                    <bdi data-testid="movement-change">{m.amount !== 0 || parts.length === 0 ? signedMoney(m.amount) : parts.join(" · ")}</bdi>
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: "nowrap" }}>
                    <Group gap={4} wrap="nowrap">
                      <Text size="sm" fw={600} c={m.balance < 0 ? "var(--mantine-color-error)" : undefined}>
                        <bdi data-testid="movement-balance">{money(m.balance)}</bdi>
                      </Text>
                      {m.balance < 0 && (
                        <Badge color="red" variant="light" data-testid="movement-debt">
                          {t("mv.debt")}
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              );
            })}
            </Table.Tbody>
          </Table>
      )}
      {results.length > 0 && <PageTotals rows={results.length} figures={[{ label: t("ml.netChange"), value: signedMoney(net), key: net.toFixed(2) }]} testId="movements-page-total" />}
      <Pager pager={pager} page={page ?? undefined} pageSize={PAGE} testId="movements-pager" />
    </Section>
  );
}
