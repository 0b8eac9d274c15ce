// Paginated queries through Convex's clients: the HTTP client's pages, and
// ConvexClient's paginated subscription (onPaginatedUpdate_experimental, the
// machinery usePaginatedQuery runs on): pages, loadMore, live inserts, the end
// of a list, and cursors that are not the query's. Each test lists the stores
// of a category of its own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { api, category, http, listing, rejectsWithCode, sockets, storeNames, tokens, watch } from "./lib.mjs";

const socket = sockets();

test("ConvexHttpClient: pages chained by continueCursor, and past the end an empty page", async () => {
  const { n } = listing("Pages");
  const { categoryId } = await category(["B", "D", "F"].map(n));
  const c = http();
  const pages = [];
  let cursor = null;
  for (;;) {
    const page = await c.query(api.listStores, { categoryId, paginationOpts: { numItems: 1, cursor } });
    assert.equal(typeof page.continueCursor, "string");
    pages.push(page);
    cursor = page.continueCursor;
    if (page.isDone || pages.length > 3) break;
  }
  assert.deepEqual(pages.map((p) => p.page.map((s) => s.name)), [[n("B")], [n("D")], [n("F")]]);
  assert.deepEqual(pages.map((p) => p.isDone), [false, false, true]);
  const past = await c.query(api.listStores, { categoryId, paginationOpts: { numItems: 1, cursor } });
  assert.deepEqual(past, { page: [], isDone: true, continueCursor: cursor });
});

test("ConvexClient: a paginated subscription loads more, shows inserts live in order, and ends with isDone", async () => {
  const { n, shows } = listing("Pager");
  const { categoryId, add } = await category(["B", "D", "F"].map(n));
  const client = socket(tokens.owner);
  const args = { categoryId };
  // A first page that holds the whole list is the end of it.
  const whole = watch(client, api.listStores, args, 10);
  await whole.until(shows(["B", "D", "F"], "Exhausted"), "the whole list on one page");
  // Pages of two: the first page, then loadMore for the rest.
  const paged = watch(client, api.listStores, args, 2);
  const first = await paged.until(shows(["B", "D"], "CanLoadMore"), "the first page of two");
  assert.equal(first.loadMore(2), true);
  const end = await paged.until(shows(["B", "D", "F"], "Exhausted"), "the second page, the last");
  assert.equal(end.loadMore(2), false, "loadMore past the end");

  // Another client's write: a store between D and F shows on the first page
  // of one subscription and on the loaded second page of the other.
  await add(n("E"));
  await whole.until(shows(["B", "D", "E", "F"], "Exhausted"), "E on the only page");
  await paged.until(shows(["B", "D", "E", "F"], "Exhausted"), "E on the loaded second page");
  // A store after the last: the last page is full, so not the end any more.
  await add(n("H"));
  await whole.until(shows(["B", "D", "E", "F", "H"], "Exhausted"), "H on the only page");
  const more = await paged.until(shows(["B", "D", "E", "F"], "CanLoadMore"), "the second page full: more to load");
  assert.equal(more.loadMore(2), true);
  await paged.until(shows(["B", "D", "E", "F", "H"], "Exhausted"), "H on a third page");
  // A store before the first: on the first page of both (a full first page
  // keeps numItems items, docs/convex.md, Pagination).
  await add(n("A"));
  await whole.until(shows(["A", "B", "D", "E", "F", "H"], "Exhausted"), "A first on the only page");
  await paged.until((v) => storeNames(v)[0] === n("A") && storeNames(v)[1] === n("B"), "A first on the first page of two");
  whole.stop();
  paged.stop();
});

test("a cursor that is not one of the query's is INVALID_ARGUMENT on paginationOpts.cursor", async () => {
  const message = /paginationOpts\.cursor: is not a cursor of this query/;
  const field = { field: "paginationOpts.cursor" };
  const client = socket(tokens.user);
  // Not a cursor at all: over HTTP and over the socket (QueryFailed).
  const garbage = { paginationOpts: { numItems: 5, cursor: "not-a-cursor" } };
  await rejectsWithCode(http().query(api.listStores, garbage), "INVALID_ARGUMENT", message, field);
  await rejectsWithCode(client.query(api.listStores, garbage), "INVALID_ARGUMENT", message, field);
  // A cursor of another query: stores are paged by name, orders by time.
  const stores = await http().query(api.listStores, { paginationOpts: { numItems: 1, cursor: null } });
  assert.equal(stores.isDone, false);
  const foreign = { paginationOpts: { numItems: 5, cursor: stores.continueCursor } };
  await rejectsWithCode(http(tokens.user).query(api.getMyOrders, foreign), "INVALID_ARGUMENT", message, field);
  await rejectsWithCode(client.query(api.getMyOrders, foreign), "INVALID_ARGUMENT", message, field);
  // The same query's cursor still works.
  const orders = await client.query(api.getMyOrders, { paginationOpts: { numItems: 5, cursor: null } });
  assert.equal(typeof orders.isDone, "boolean");
});
