import { Alert, Button, Group, Stack, Table, Text, TextInput } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import { useState } from "react";
import { dayAt, monthOf, periodOf } from "../app/days";
import { useI18n } from "../app/i18n";
import { DataTable } from "../ui/DataTable";
import { CsvButton } from "../ui/ListTools";
import { Loading } from "../ui/Loading";
import { BY_ADMIN, movementLabel } from "../ui/Movements";
import { UserText } from "../ui/UserText";
import { StatusBadge } from "../ui/StatusBadge";
import { useStore } from "./StoreContext";
import { ScreenTitle } from "../ui/ScreenTitle";

// The store's statement over a period (stores.wallet.getStatement, live):
// the opening balance, every change of the balance in order with its signed
// amount and the running balance (available + pending + disputed, negative
// in debt), and the closing balance; the same as CSV from the gateway's
// statement route (CsvButton: the session's token in its Authorization
// header). Days are Asia/Dubai's (src/app/days.ts), whatever the browser's
// zone; a period is at most 366 days, as the server's.

export default function Statement() {
  const { t } = useI18n();
  const { store } = useStore();
  const [period, setPeriod] = useState(() => monthOf(Date.now()));
  const bounds = periodOf(period);
  return (
    <Stack>
      <ScreenTitle screen={t("statement.title")} name={store.name} />
      <Text size="sm">{t("statement.intro")}</Text>
      <Group align="flex-end" wrap="wrap">
        <TextInput
          type="date"
          label={t("statement.from")}
          value={period.from}
          onChange={(e) => setPeriod({ ...period, from: e.currentTarget.value })}
          data-testid="statement-from"
          dir="ltr"
        />
        <TextInput
          type="date"
          label={t("statement.to")}
          value={period.to}
          onChange={(e) => setPeriod({ ...period, to: e.currentTarget.value })}
          data-testid="statement-to"
          dir="ltr"
        />
        <Button variant="default" onClick={() => setPeriod(monthOf(Date.now()))} data-testid="this-month">
          {t("statement.thisMonth")}
        </Button>
        <Button variant="default" onClick={() => setPeriod(monthOf(Date.now(), 1))} data-testid="last-month">
          {t("statement.lastMonth")}
        </Button>
      </Group>
      {bounds ? (
        <StatementTable storeId={store._id} from={bounds.from} to={bounds.to} key={`${store._id}:${period.from}:${period.to}`} />
      ) : (
        <Alert color="red" role="alert">
          {t("range.bad")}
        </Alert>
      )}
    </Stack>
  );
}

function StatementTable({ storeId, from, to }: { storeId: string; from: number; to: number }) {
  const { t, money, signedMoney, dateTime } = useI18n();
  const statement = useQuery(api.stores.wallet.getStatement, { storeId, from, to });
  if (statement === undefined) return <Loading />;
  if (statement === null) return <Text>{t("wallet.none")}</Text>;
  const figure = { style: { whiteSpace: "nowrap" as const } };
  return (
    <Stack>
      <Group justify="space-between" wrap="wrap">
        <Text fw={600}>
          {t("statement.opening")}: <bdi data-testid="statement-opening">{money(statement.openingBalance)}</bdi>
        </Text>
        <CsvButton
          path={`/api/stores/${encodeURIComponent(storeId)}/statement.csv?from=${from}&to=${to}`}
          filename={`statement-${storeId}-${dayAt(from)}-${dayAt(to)}.csv`}
          label={t("statement.download")}
          testId="statement-download"
        />
      </Group>
      {statement.entries.length === 0 ? (
        <Text data-testid="statement-empty">{t("statement.none")}</Text>
      ) : (
        <DataTable
          striped
          data-testid="statement"
          columns={["statement.date", "statement.description", "statement.amount", "statement.balance", "statement.status"]}
        >
          {statement.entries.map((e) => (
            <Table.Tr key={e.seq} data-seq={e.seq} data-kind={e.kind} data-amount={e.amount.toFixed(2)} data-balance={e.balance.toFixed(2)}>
              <Table.Td {...figure}>{dateTime(e.at)}</Table.Td>
              <Table.Td>
                <Text size="sm" fw={600}>
                  {movementLabel(e, t)}
                </Text>
                {BY_ADMIN.has(e.kind) && e.description && (
                  <Text size="xs" dir="auto">
                    {t("mv.reason")}: <UserText>{e.description}</UserText>
                  </Text>
                )}
              </Table.Td>
              <Table.Td {...figure} c={e.amount < 0 ? "var(--mantine-color-error)" : undefined}>
                <bdi>{signedMoney(e.amount)}</bdi>
              </Table.Td>
              <Table.Td {...figure} fw={600}>
                <bdi>{money(e.balance)}</bdi>
              </Table.Td>
              <Table.Td>
                <StatusBadge status={e.status} />
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      )}
      <Text fw={600}>
        {t("statement.closing")}: <bdi data-testid="statement-closing">{money(statement.closingBalance)}</bdi>
      </Text>
    </Stack>
  );
}
