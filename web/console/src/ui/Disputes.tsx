import { Badge, Stack, Table, Text } from "@mantine/core";
import type { api } from "@marketplace/api";
import type { FunctionReturnType } from "convex/server";
import { useI18n } from "../app/i18n";
import { en, type MessageKey } from "../app/messages";
import { DataTable } from "./DataTable";
import { PagedList, type Pages } from "./PagedList";
import { orderNumber } from "./Refunds";
import { Section } from "./Section";

// Disputes as the console (every store's) and the portal (the store's) list
// them: the open ones by their deadline at the processor, soonest first (the
// server's order), with the days left; then the closed ones (won or lost),
// newest first. Both lists are live.

export type Dispute = FunctionReturnType<typeof api.admins.disputes.listDisputes>["page"][number];

const DAY_MS = 24 * 60 * 60 * 1000;
const STATUS_COLORS: Record<string, string> = { open: "orange", won: "green", lost: "red" };

export function DisputeLists(props: { open: Pages<Dispute>; all: Pages<Dispute>; storeName?(storeId: string): string }) {
  const { t } = useI18n();
  // The unfiltered list holds the open ones too: the closed section leaves them out.
  const closed = { ...props.all, results: props.all.results.filter((d) => d.status !== "open") };
  return (
    <Stack>
      <Section id="disputes-open-title" title={t("disputes.open")}>
        <PagedList pages={props.open} empty={t("disputes.noneOpen")} emptyTestId="disputes-open-empty">
          {(results) => <DisputeTable disputes={results} open storeName={props.storeName} testId="disputes-open" />}
        </PagedList>
      </Section>
      <Section id="disputes-closed-title" title={t("disputes.closed")}>
        <PagedList pages={closed} empty={t("disputes.noneClosed")} emptyTestId="disputes-closed-empty">
          {(results) => <DisputeTable disputes={results} open={false} storeName={props.storeName} testId="disputes-closed" />}
        </PagedList>
      </Section>
    </Stack>
  );
}

function DisputeTable({ disputes, open, storeName, testId }: { disputes: Dispute[]; open: boolean; storeName?(id: string): string; testId: string }) {
  const { t, money, dateTime } = useI18n();
  const columns: MessageKey[] = [
    "disputes.order",
    ...(storeName ? (["disputes.store"] as MessageKey[]) : []),
    "disputes.amount",
    "disputes.reason",
    "disputes.openedAt",
    open ? "disputes.dueBy" : "disputes.closedAt",
    open ? "statement.status" : "disputes.outcome",
  ];
  const now = Date.now();
  return (
    <DataTable data-testid={testId} columns={columns}>
      {disputes.map((d) => {
        const days = Math.ceil((d.dueBy - now) / DAY_MS);
        return (
          <Table.Tr key={d.disputeId} data-dispute={d.disputeId} data-order={d.orderId} data-due={d.dueBy} data-status={d.status}>
            <Table.Td>
              <Text size="sm" fw={600} dir="ltr" title={d.orderId}>
                {orderNumber(d.orderId)}
              </Text>
              <Text size="xs" ff="monospace" dir="ltr">
                {d.disputeId}
              </Text>
            </Table.Td>
            {storeName && <Table.Td>{storeName(d.storeId)}</Table.Td>}
            <Table.Td style={{ whiteSpace: "nowrap" }}>
              <bdi>{d.currency === "aed" ? money(d.amount) : `${d.currency.toUpperCase()} ${d.amount.toFixed(2)}`}</bdi>
            </Table.Td>
            <Table.Td>
              <DisputeReason reason={d.reason} />
            </Table.Td>
            <Table.Td style={{ whiteSpace: "nowrap" }}>{dateTime(d.openedAt)}</Table.Td>
            <Table.Td style={{ whiteSpace: "nowrap" }}>
              {open ? (
                <>
                  <Text size="sm" fw={600}>
                    {dateTime(d.dueBy)}
                  </Text>
                  <Text size="xs" c={days <= 2 ? "var(--mantine-color-error)" : undefined} data-testid="dispute-days">
                    {days < 0 ? t("disputes.overdue") : t("disputes.daysLeft", { n: days })}
                  </Text>
                </>
              ) : (
                dateTime(d.closedAt)
              )}
            </Table.Td>
            <Table.Td>
              <Badge color={STATUS_COLORS[d.status] ?? "gray"} variant="light" style={{ minWidth: "max-content" }}>
                {t(`dispute.status.${d.status}` as MessageKey)}
              </Badge>
            </Table.Td>
          </Table.Tr>
        );
      })}
    </DataTable>
  );
}

// The processor's reason in the viewer's language, its code kept as the
// title; a reason the console has no words for shows as its code.
function DisputeReason({ reason }: { reason: string }) {
  const { t } = useI18n();
  const key = `dispute.reason.${reason}`;
  if (!Object.hasOwn(en, key)) {
    return (
      <Text size="sm" ff="monospace" dir="ltr" data-reason={reason}>
        {reason}
      </Text>
    );
  }
  return (
    <Text size="sm" title={reason} data-reason={reason}>
      {t(key as MessageKey)}
    </Text>
  );
}
