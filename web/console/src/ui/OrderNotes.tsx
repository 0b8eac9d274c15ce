import { Badge, Stack, Table, Text } from "@mantine/core";
import { api } from "@marketplace/api";
import { useQuery } from "convex/react";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { Loading } from "./Loading";
import { noteText, serverText } from "./NotificationList";
import { Section } from "./Section";

// The notifications sent about one order (stores.notifications.listForOrder,
// live; the 50 newest): to whom (the customer, the store's owner, the
// administrators), what (in the viewer's language where the notification
// has params, else the server's English), when, and whether it was read.
// The order page of both areas shows it.
export default function OrderNotes({ storeId, orderId }: { storeId: string; orderId: string }) {
  const i18n = useI18n();
  const { t, dateTime } = i18n;
  const notes = useQuery(api.stores.notifications.listForOrder, { storeId, orderId });
  return (
    <Section id="order-notes-title" title={t("notes.title")}>
      {notes === undefined ? (
        <Loading />
      ) : notes.length === 0 ? (
        <Text data-testid="order-notes-empty">{t("notes.none")}</Text>
      ) : (
        <Table data-testid="order-notes">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t("notes.when")}</Table.Th>
              <Table.Th>{t("notes.to")}</Table.Th>
              <Table.Th>{t("notes.what")}</Table.Th>
              <Table.Th>{t("notes.read")}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {notes.map((n) => {
              const text = noteText(n, i18n);
              const marks = text ? {} : serverText;
              return (
                <Table.Tr key={n._id} data-note={n._id} data-type={n.type} data-role={n.recipientRole || "unknown"}>
                  <Table.Td>{dateTime(n.eventTime)}</Table.Td>
                  <Table.Td>{t(`note.role.${n.recipientRole || "unknown"}` as MessageKey)}</Table.Td>
                  <Table.Td>
                    <Stack gap={2}>
                      <Text size="sm" fw={600} {...marks}>
                        {text?.title ?? n.title}
                      </Text>
                      <Text size="sm" {...marks}>
                        {text?.body ?? n.body}
                      </Text>
                    </Stack>
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={n.read ? "gray" : "blue"}>
                      {n.read ? t("notes.yes") : t("notes.no")}
                    </Badge>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
    </Section>
  );
}
