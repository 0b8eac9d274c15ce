// Run by deploy/e2e's TestConvexClients after convex.test.mjs, with the
// reviews service unreachable from the gateway and the payouts service
// answering garbage: the failures arrive as ConvexError codes too.
import { test } from "node:test";
import { ConvexClient } from "convex/browser";
import { api, http, options, rejectsWithCode, storeId, tokens, url } from "./lib.mjs";

const args = { storeId, paginationOpts: { numItems: 5, cursor: null } };

test("a service that is down answers UNAVAILABLE", async () => {
  await rejectsWithCode(http().query(api.getStoreReviews, args), "UNAVAILABLE");
  const client = new ConvexClient(url, options);
  try {
    await rejectsWithCode(client.query(api.getStoreReviews, args), "UNAVAILABLE");
  } finally {
    await client.close();
  }
});

test("a service that fails answers INTERNAL", async () => {
  await rejectsWithCode(http(tokens.owner).query(api.getWallet, { storeId }), "INTERNAL");
});
