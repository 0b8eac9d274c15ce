import { Table, type TableProps } from "@mantine/core";
import type { ReactNode } from "react";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";

// A table with a row of column headings (the messages' keys); given a
// minWidth, it scrolls sideways where the screen is narrower. The rows are
// the children.
export function DataTable({ columns, minWidth, children, ...table }: TableProps & { columns: MessageKey[]; minWidth?: number; children: ReactNode }) {
  const { t } = useI18n();
  const body = (
    <Table {...table}>
      <Table.Thead>
        <Table.Tr>
          {columns.map((c) => (
            <Table.Th key={c}>{t(c)}</Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>{children}</Table.Tbody>
    </Table>
  );
  return minWidth === undefined ? body : <Table.ScrollContainer minWidth={minWidth}>{body}</Table.ScrollContainer>;
}
