import { Alert, Button, Group, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import { useState } from "react";
import { refusalOf } from "../app/action";
import { TIME_ZONE, useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { useSession } from "../app/session";
import { DataTable } from "../ui/DataTable";
import { Loading } from "../ui/Loading";
import { StatusBadge } from "../ui/StatusBadge";
import { useStore } from "./StoreContext";

// The store's statement over a period (stores.wallet.getStatement, live):
// the opening balance, every change of the balance in order with its signed
// amount and the running balance (available + pending + disputed, negative
// in debt), and the closing balance; the same as CSV from the gateway's
// statement route, which needs the session's token in its Authorization
// header: fetched, then saved from a blob. Days are Asia/Dubai's (UTC+4 all
// year: the UAE keeps no daylight saving), whatever the browser's zone.

const DUBAI_OFFSET = "+04:00";
const dayFormat = new Intl.DateTimeFormat("en-CA", { timeZone: TIME_ZONE, year: "numeric", month: "2-digit", day: "2-digit" });

/** The day (YYYY-MM-DD) in Dubai at ms. */
const dayAt = (ms: number) => dayFormat.format(new Date(ms));
const startOf = (day: string) => Date.parse(`${day}T00:00:00.000${DUBAI_OFFSET}`);
const endOf = (day: string) => Date.parse(`${day}T23:59:59.999${DUBAI_OFFSET}`);

/** The first and last day of the month ago months before today's (in Dubai). */
export function monthOf(now: number, ago = 0): { from: string; to: string } {
  const [y, m] = dayAt(now).split("-").map(Number);
  const first = new Date(Date.UTC(y, m - 1 - ago, 1));
  const last = new Date(Date.UTC(y, m - ago, 0));
  const iso = (d: Date) => d.toISOString().slice(0, 10);
  return { from: iso(first), to: iso(last) };
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export default function Statement() {
  const { t } = useI18n();
  const { store } = useStore();
  const [period, setPeriod] = useState(() => monthOf(Date.now()));
  const valid = DAY.test(period.from) && DAY.test(period.to) && startOf(period.from) <= endOf(period.to);
  return (
    <Stack>
      <Title order={2}>
        {t("statement.title")}: {store.name}
      </Title>
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
      {valid ? (
        <StatementTable storeId={store._id} from={startOf(period.from)} to={endOf(period.to)} key={`${store._id}:${period.from}:${period.to}`} />
      ) : (
        <Alert color="red" role="alert">
          {t("statement.badPeriod")}
        </Alert>
      )}
    </Stack>
  );
}

function StatementTable({ storeId, from, to }: { storeId: string; from: number; to: number }) {
  const { t, money, signedMoney, dateTime, lang } = useI18n();
  const statement = useQuery(api.stores.wallet.getStatement, { storeId, from, to });
  if (statement === undefined) return <Loading />;
  if (statement === null) return <Text>{t("wallet.none")}</Text>;
  // A kind this screen has no words for shows as the server names it.
  const kind = (k: string) => {
    const s = t(`kind.${k}` as MessageKey);
    return s === `kind.${k}` ? k : s;
  };
  const serverLang = lang === "ar" ? { lang: "en", dir: "ltr" as const } : {};
  const figure = { style: { whiteSpace: "nowrap" as const } };
  return (
    <Stack>
      <Group justify="space-between" wrap="wrap">
        <Text fw={600}>
          {t("statement.opening")}: <bdi data-testid="statement-opening">{money(statement.openingBalance)}</bdi>
        </Text>
        <Download storeId={storeId} from={from} to={to} />
      </Group>
      {statement.entries.length === 0 ? (
        <Text data-testid="statement-empty">{t("statement.none")}</Text>
      ) : (
        <DataTable
          minWidth={820}
          striped
          data-testid="statement"
          columns={["statement.date", "statement.description", "statement.amount", "statement.balance", "statement.status"]}
        >
          {statement.entries.map((e) => (
            <Table.Tr key={e.seq} data-seq={e.seq} data-kind={e.kind} data-amount={e.amount.toFixed(2)} data-balance={e.balance.toFixed(2)}>
              <Table.Td {...figure}>{dateTime(e.at)}</Table.Td>
              <Table.Td>
                <Text size="sm" fw={600}>
                  {kind(e.kind)}
                </Text>
                <Text size="xs" {...serverLang}>
                  {e.description}
                </Text>
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

// The CSV route takes the caller's bearer token in the Authorization header
// (a link could not send it): fetched, then saved through an object URL.
function Download({ storeId, from, to }: { storeId: string; from: number; to: number }) {
  const { t } = useI18n();
  const { token } = useSession();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const download = async () => {
    setPending(true);
    setError(null);
    try {
      const r = await fetch(`/api/stores/${encodeURIComponent(storeId)}/statement.csv?from=${from}&to=${to}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      if (!r.ok) {
        let message = `${r.status} ${r.statusText}`;
        try {
          const body = await r.json();
          message = body?.message ?? body?.error?.message ?? message;
        } catch {
          // not JSON: the status says it
        }
        throw new Error(message);
      }
      const url = URL.createObjectURL(await r.blob());
      const a = document.createElement("a");
      a.href = url;
      a.download = `statement-${storeId}-${dayAt(from)}-${dayAt(to)}.csv`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (e) {
      setError(t("statement.downloadFailed", { message: refusalOf(e).message }));
    } finally {
      setPending(false);
    }
  };
  return (
    <Stack gap={4} align="flex-end">
      <Button variant="light" onClick={() => void download()} loading={pending} data-testid="statement-download">
        {t("statement.download")}
      </Button>
      {error && (
        <Alert color="red" role="alert" p="xs">
          {error}
        </Alert>
      )}
    </Stack>
  );
}
