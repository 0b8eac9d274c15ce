import { Card, SimpleGrid, Text } from "@mantine/core";
import type { api } from "@marketplace/api";
import type { FunctionReturnType } from "convex/server";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";

type Wallet = NonNullable<FunctionReturnType<typeof api.stores.wallet.getWallet>>;

// A store's four balances, as the console's wallets screen and the portal's
// wallet show them.
export function Balances({ wallet }: { wallet: Wallet }) {
  const { t, money } = useI18n();
  const figures: [MessageKey, number, string][] = [
    ["wallet.available", wallet.availableBalance, "available"],
    ["wallet.pending", wallet.pendingBalance, "pending"],
    ["wallet.earnings", wallet.totalEarnings, "earnings"],
    ["wallet.paidOut", wallet.totalPayouts, "paid-out"],
  ];
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }}>
      {figures.map(([label, value, id]) => (
        <Card withBorder key={id}>
          <Text size="sm">{t(label)}</Text>
          <Text size="xl" fw={700} data-testid={`wallet-${id}`}>
            {money(value)}
          </Text>
        </Card>
      ))}
    </SimpleGrid>
  );
}
