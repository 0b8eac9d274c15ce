// A type check of the generated client (compiled, never run, by
// deploy/e2e's TestTypeScriptClientIsGenerated): calls an app would write
// must compile with Convex's own client, and wrong ones must not (an
// expected-error directive fails the compilation when its line type-checks).
import { ConvexHttpClient } from "convex/browser";
import type {
  FunctionArgs,
  FunctionReference,
  FunctionReturnType,
  PaginationOptions,
  PaginationResult,
} from "convex/server";
import { api } from "../api.js";

// What usePaginatedQuery (convex/react) accepts.
type PaginatedQueryReference = FunctionReference<
  "query",
  "public",
  { paginationOpts: PaginationOptions },
  PaginationResult<any>
>;

export async function usage(client: ConvexHttpClient, storeId: string, productId: string) {
  // Queries without arguments may leave them out.
  const cities = await client.query(api.catalog.locations.listCities);
  const firstName: string | undefined = cities[0]?.name;

  const store = await client.query(api.stores.catalog.getStore, { storeId });
  if (store !== null) {
    const name: string = store.name;
    const open: boolean = store.isOpen;
  }

  const reviews = await client.query(api.stores.reviews.getStoreReviews, {
    storeId,
    paginationOpts: { numItems: 20, cursor: null },
    sortBy: "most_helpful",
  });
  const done: boolean = reviews.isDone;
  const cursor: string = reviews.continueCursor;
  const rating: number | undefined = reviews.page[0]?.rating;

  const itemId: string = await client.mutation(api.customers.cart.addItem, { productId, quantity: 2 });
  const nothing: null = await client.mutation(api.customers.cart.removeItem, { itemId });

  // The reactive clients' paginated hooks take the paginated queries.
  const paginated: PaginatedQueryReference = api.stores.reviews.getStoreReviews;
  const inbox: PaginatedQueryReference = api.notifications.inbox.list;

  // Argument and return types are reachable with Convex's helpers.
  const args: FunctionArgs<typeof api.customers.addresses.createAddress> = {
    customerId: "cus_0",
    name: "Home",
    fullAddress: "Villa 1",
    city: "cty_0",
    area: "ara_0",
  };
  type Profile = FunctionReturnType<typeof api.customers.profile.getMyProfile>;
  const profile: Profile = null;

  // @ts-expect-error storeId is required
  await client.query(api.stores.catalog.getStore, {});
  // @ts-expect-error quantity is a number
  await client.mutation(api.customers.cart.addItem, { productId, quantity: "2" });
  // @ts-expect-error an argument the operation does not declare
  await client.query(api.stores.catalog.getStore, { storeId, extra: 1 });
  // @ts-expect-error sortBy is one of the declared values
  await client.query(api.stores.reviews.getStoreReviews, { storeId, paginationOpts: { numItems: 1, cursor: null }, sortBy: "best" });
  // @ts-expect-error a query is not a mutation
  await client.mutation(api.stores.catalog.getStore, { storeId });
  // @ts-expect-error the answer is an array, not a string
  const wrong: string = await client.query(api.catalog.locations.listCities, {});
  // @ts-expect-error no such operation
  api.stores.catalog.noSuchOperation;
  // @ts-expect-error getStore does not take paginationOpts
  const notPaginated: PaginatedQueryReference = api.stores.catalog.getStore;

  return { firstName, done, cursor, rating, nothing, paginated, inbox, args, profile, wrong, notPaginated };
}
