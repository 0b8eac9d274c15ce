import { Alert, Card, SimpleGrid, Stack, Text } from "@mantine/core";
import type { api } from "@marketplace/api";
import type { FunctionReturnType } from "convex/server";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";

type Wallet = NonNullable<FunctionReturnType<typeof api.stores.wallet.getWallet>>;

// A store's balances, as the console's wallets screen and the portal's
// wallet show them: available (negative when refunds or lost disputes took
// more than it held: a debt, said in words above the figures), pending,
// disputed (the store's share of open disputes), total earnings, paid out.
// who says whose wallet it is: the owner's own ("you owe") or a store's.
export function Balances({ wallet, who = "owner" }: { wallet: Wallet; who?: "owner" | "admin" }) {
  const { t, money } = useI18n();
  const figures: [MessageKey, number, string][] = [
    ["wallet.available", wallet.availableBalance, "available"],
    ["wallet.pending", wallet.pendingBalance, "pending"],
    ["wallet.disputed", wallet.disputedBalance, "disputed"],
    ["wallet.earnings", wallet.totalEarnings, "earnings"],
    ["wallet.paidOut", wallet.totalPayouts, "paid-out"],
  ];
  const debt = wallet.debt > 0 ? wallet.debt : Math.max(0, -wallet.availableBalance);
  return (
    <Stack>
      {debt > 0 && (
        <Alert color="red" title={t(who === "owner" ? "wallet.debtTitle" : "wallet.storeDebtTitle")} data-testid="wallet-debt" data-debt={debt.toFixed(2)}>
          {t(who === "owner" ? "wallet.debt" : "wallet.storeDebt", { amount: money(debt) })}
        </Alert>
      )}
      <SimpleGrid cols={{ base: 2, md: 5 }}>
        {figures.map(([label, value, id]) => (
          <Card withBorder key={id}>
            <Text size="sm">{t(label)}</Text>
            <Text size="xl" fw={700} data-testid={`wallet-${id}`} c={value < 0 ? "var(--mantine-color-error)" : undefined}>
              {money(value)}
            </Text>
          </Card>
        ))}
      </SimpleGrid>
      {wallet.disputedBalance > 0 && (
        <Text size="sm" data-testid="wallet-disputed-note">
          {t("wallet.disputedNote", { amount: money(wallet.disputedBalance) })}
        </Text>
      )}
    </Stack>
  );
}
