import { Table, type TableProps } from "@mantine/core";
import { useId, type ReactNode } from "react";
import { useI18n } from "../app/i18n";
import type { MessageKey } from "../app/messages";
import { SortableTh, type Sort } from "./ListTools";

// A table with a row of column headings (the messages' keys); the rows are
// the children (Table.Tr of Table.Td, one cell per column, in order).
//
// Below the sm breakpoint (48em) it becomes a list of cards (ADR 0158): each
// row a card, each cell on its own line labelled by its column (the label is
// CSS generated from the headings: the screens' rows stay as they are), and
// nothing scrolls sideways. The headings that sort stay above the cards.
//
// sort: the columns that sort the list (message key -> the list's sort
// field), the sort now, and what choosing one does (useSort, ListTools.tsx).
export function DataTable({
  columns,
  minWidth: _ignored,
  sort,
  children,
  className,
  ...table
}: TableProps & {
  columns: MessageKey[];
  /** Ignored: tables fit their columns, and become cards on phones (no sideways scroll). */
  minWidth?: number;
  sort?: { fields: Partial<Record<MessageKey, string>>; value: Sort; onSort(by: string): void };
  children: ReactNode;
}) {
  const { t } = useI18n();
  const id = `mk-t${useId().replace(/[^A-Za-z0-9_-]/g, "")}`;
  const labels = columns.map((c, i) => `.${id}>tbody>tr>td:nth-child(${i + 1})::before{content:${JSON.stringify(t(c))}}`).join("");
  return (
    <>
      <style>{`@media (max-width:47.99em){${labels}}`}</style>
      <Table {...table} className={`mk-cards ${id}${className ? ` ${className}` : ""}`}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((c) => {
              const field = sort?.fields[c];
              return field && sort ? <SortableTh key={c} label={t(c)} column={field} sort={sort.value} onSort={sort.onSort} /> : <Table.Th key={c}>{t(c)}</Table.Th>;
            })}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>{children}</Table.Tbody>
      </Table>
    </>
  );
}
