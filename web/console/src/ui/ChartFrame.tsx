import { Table, VisuallyHidden } from "@mantine/core";
import type { ReactElement, ReactNode } from "react";
import { ResponsiveContainer } from "recharts";

// The frame every chart of the console is drawn in (Recharts: import this
// only from a lazily loaded chunk, as the charts are, to keep it out of the
// first load). The drawing is hidden from screen readers and stays left to
// right (SVG anchors its labels by the text direction; in Arabic the axes
// are reversed instead); its figures are in a visually hidden table.

/** A chart's drawing, height pixels high, the full width. */
export function ChartFrame({ height, children, testId }: { height: number; children: ReactElement; testId?: string }) {
  return (
    <div style={{ width: "100%", height, direction: "ltr" }} aria-hidden="true" data-testid={testId}>
      <ResponsiveContainer>{children}</ResponsiveContainer>
    </div>
  );
}

/** A row of a chart's figures: its cells, and attributes (data-*) for the tests. */
export interface FigureRow {
  key: string;
  cells: ReactNode[];
  attrs?: Record<string, string | number>;
}

/** A chart's figures for screen readers: a visually hidden table (head: the columns' names). */
export function Figures({ head, rows, testId }: { head?: string[]; rows: FigureRow[]; testId?: string }) {
  return (
    <VisuallyHidden>
      <Table data-testid={testId}>
        {head && (
          <Table.Thead>
            <Table.Tr>
              {head.map((h) => (
                <Table.Th key={h}>{h}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
        )}
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={r.key} {...r.attrs}>
              {r.cells.map((c, i) => (
                <Table.Td key={i}>{c}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </VisuallyHidden>
  );
}
