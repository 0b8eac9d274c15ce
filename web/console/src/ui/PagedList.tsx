import { Button, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { useI18n } from "../app/i18n";
import { Loading } from "./Loading";

/** What usePaginatedQuery returns, as much as a list needs. */
export interface Pages<T> {
  results: T[];
  status: "LoadingFirstPage" | "CanLoadMore" | "LoadingMore" | "Exhausted";
  loadMore(numItems: number): void;
}

export const PAGE = 20;

// A live, paginated list: a loader until the first page comes, a sentence
// when there is nothing, the items, and "Show more" while the server has
// more (pageSize more, PAGE unless said).
export function PagedList<T>(props: { pages: Pages<T>; empty: string; emptyTestId?: string; pageSize?: number; children(results: T[]): ReactNode }) {
  const { t } = useI18n();
  const { results, status, loadMore } = props.pages;
  return (
    <>
      {status === "LoadingFirstPage" ? (
        <Loading />
      ) : results.length === 0 ? (
        <Text data-testid={props.emptyTestId}>{props.empty}</Text>
      ) : (
        props.children(results)
      )}
      {status === "CanLoadMore" && (
        <Button variant="default" onClick={() => loadMore(props.pageSize ?? PAGE)} w="fit-content">
          {t("history.more")}
        </Button>
      )}
    </>
  );
}
