import { Button, Group, Text } from "@mantine/core";
import { useState } from "react";
import { useI18n } from "../app/i18n";

// Numbered pages over the server's keyset cursors (ADR 0005): a page is
// asked with paginationOpts { numItems, cursor }, and its answer's
// continueCursor is where the next one starts. The pager keeps the cursors
// of the pages seen (a stack), so it can go back to any of them and on to
// the next; it cannot jump ahead to page 7 (no cursor for it). Each page is
// its own useQuery, so the page shown stays live.
//
//   const pager = usePager(JSON.stringify(filters)); // new filters: page 1
//   const page = useQuery(api.x.list, { ...filters, paginationOpts: { numItems: PAGE, cursor: pager.cursor } });
//   ... rows of page?.page ...
//   <Pager pager={pager} page={page} count={count?.count} capped={count?.capped} pageSize={PAGE} />

/** What a page's answer tells the pager. */
export interface PageAnswer {
  isDone: boolean;
  continueCursor: string;
}

export interface PagerState {
  /** The cursor of the page to ask for (null: the first). */
  cursor: string | null;
  /** The page shown, from 1. */
  page: number;
  /** Pages seen so far (those the pager can go back to). */
  seen: number;
  /** Go to page n (1..seen). */
  go(n: number): void;
  /** Go to the page after the current one, which starts at continueCursor. */
  next(continueCursor: string): void;
}

/**
 * The pages' cursors for one list; a different resetKey (the list's filters,
 * its sort) starts again at page 1.
 */
export function usePager(resetKey = ""): PagerState {
  const [state, setState] = useState<{ key: string; stack: (string | null)[]; at: number }>({ key: resetKey, stack: [null], at: 0 });
  const s = state.key === resetKey ? state : { key: resetKey, stack: [null], at: 0 };
  return {
    cursor: s.stack[s.at],
    page: s.at + 1,
    seen: s.stack.length,
    go: (n) => setState({ ...s, at: Math.min(Math.max(n, 1), s.stack.length) - 1 }),
    next: (cursor) => setState({ key: s.key, stack: [...s.stack.slice(0, s.at + 1), cursor], at: s.at + 1 }),
  };
}

/**
 * The pager's controls: previous, the pages seen by number, next (while the
 * server has more), and "Page 3 of 12" when the list's count is given
 * (capped: the count stopped at its cap, "of more than 400" pages of 25
 * for a cap of 10,000), every number in the locale's form.
 */
export function Pager(props: { pager: PagerState; page: PageAnswer | undefined; count?: number; capped?: boolean; pageSize: number; testId?: string }) {
  const { t, number } = useI18n();
  const { pager, page, count, capped, pageSize } = props;
  // Pages, not rows: capped, the count stopped at its cap, so there are
  // more than that many pages' worth ("of more than 400" at 25 a page).
  const total = count === undefined ? undefined : Math.max(1, Math.ceil(count / pageSize));
  const hasNext = page !== undefined && !page.isDone;
  if (pager.page === 1 && !hasNext && (total === undefined || total <= 1)) return null;
  const numbers = Array.from({ length: pager.seen }, (_, i) => i + 1);
  const where =
    total === undefined
      ? t("pager.page", { n: number(pager.page) })
      : t(capped ? "pager.pageOfMore" : "pager.pageOf", { n: number(pager.page), total: number(total) });
  return (
    <Group component="nav" aria-label={t("pager.label")} gap="xs" wrap="wrap" data-testid={props.testId ?? "pager"} data-page={pager.page} data-pages={total}>
      <Button variant="default" size="xs" disabled={pager.page <= 1} onClick={() => pager.go(pager.page - 1)} data-testid="pager-previous">
        {t("pager.previous")}
      </Button>
      {numbers.map((n) => (
        <Button
          key={n}
          size="xs"
          variant={n === pager.page ? "filled" : "default"}
          aria-current={n === pager.page ? "page" : undefined}
          aria-label={t("pager.goTo", { n: number(n) })}
          onClick={() => pager.go(n)}
          data-testid={`pager-page-${n}`}
        >
          {number(n)}
        </Button>
      ))}
      <Button
        variant="default"
        size="xs"
        disabled={!(hasNext || pager.page < pager.seen)}
        onClick={() => (pager.page < pager.seen ? pager.go(pager.page + 1) : page && pager.next(page.continueCursor))}
        data-testid="pager-next"
      >
        {t("pager.next")}
      </Button>
      <Text size="sm" aria-live="polite" data-testid="pager-where">
        {where}
      </Text>
    </Group>
  );
}
