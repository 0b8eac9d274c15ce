// Convex's own clients (npm convex 1.48.0, unmodified) against the gateway.
// deploy/e2e's TestConvexClients starts the system, sets up a world (stores,
// products, a customer with a cart) and runs this file, pagination.test.mjs
// and reconnect.test.mjs with node --test, passing the gateway URL, tokens and
// ids in the environment.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ConvexError } from "convex/values";
import { api, env, firstProducts, http, productId, rejectsWithCode, sockets, storeId, tokens, unique, until, url } from "./lib.mjs";

const socket = sockets();

test("ConvexHttpClient: queries without a token", async () => {
  const c = http();
  const store = await c.query(api.getStore, { storeId });
  assert.equal(store._id, storeId);
  assert.equal(store.name, "Bakery");
  const products = await c.query(api.products, firstProducts);
  assert.ok(products.page.some((p) => p._id === productId));
  assert.equal(products.isDone, true);
  // The deprecated one-array listing still answers existing clients.
  assert.deepEqual(await c.query(api.listProducts, { storeId }), products.page);
  assert.ok(Array.isArray(await c.query(api.listCities)));
  await rejectsWithCode(c.mutation(api.upsertMyProfile, { name: "Nobody" }), "UNAUTHENTICATED");
});

test("ConvexHttpClient: queries and mutations with a token", async () => {
  const c = http(tokens.user);
  const before = await c.query(api.getMyProfile);
  assert.equal(before.name, "Noor");
  const id = await c.mutation(api.upsertMyProfile, { name: "Noor", phone: "+971501111111" });
  assert.equal(id, before._id);
  const name = unique("Http loaf");
  const owner = http(tokens.owner);
  const created = await owner.mutation(api.createProduct, { storeId, name, price: 4.25 });
  const products = await owner.query(api.products, firstProducts);
  assert.deepEqual(products.page.find((p) => p._id === created)?.price, 4.25);
});

test("ConvexHttpClient: each error code arrives as ConvexError.data.code", async () => {
  // UNAVAILABLE and INTERNAL: outage.test.mjs, run with services made unreachable.
  const owner = http(tokens.owner);
  await rejectsWithCode(owner.mutation(api.createProduct, { storeId, name: "Bad", price: "cheap" }), "INVALID_ARGUMENT");
  await rejectsWithCode(http().query(api.getMyProfile), "UNAUTHENTICATED");
  await rejectsWithCode(http(tokens.user).mutation(api.createProduct, { storeId, name: "Not mine", price: 1 }), "PERMISSION_DENIED");
  await rejectsWithCode(http(tokens.user).mutation(api.markRead, { notificationId: "ntf_" + "0".repeat(24) }), "NOT_FOUND");
  await rejectsWithCode(http().query(api.nope), "NOT_FOUND", /Could not find public function for 'nope\/nope:nope'/);
  await rejectsWithCode(http(tokens.admin).mutation(api.createInitialPlatformConfig, { adminUserId: "admin-1" }), "ALREADY_EXISTS");
  await rejectsWithCode(http(tokens.newbie).mutation(api.addItem, { productId, quantity: 1 }), "FAILED_PRECONDITION");
  // One caller's burst beyond the gateway's per-caller limit.
  const flood = http(tokens.flood);
  const results = await Promise.allSettled(Array.from({ length: 150 }, () => flood.query(api.getMyProfile)));
  const limited = results.filter((r) => r.status === "rejected");
  assert.ok(limited.length > 0, "150 calls at once were all let through");
  for (const r of limited) {
    assert.ok(r.reason instanceof ConvexError);
    assert.equal(r.reason.data.code, "RATE_LIMITED");
  }
  // A token that does not verify is refused before any function runs: a 401,
  // which the client throws as a plain Error, as with Convex.
  await assert.rejects(http(tokens.expired).query(api.listCities), (err) => {
    assert.ok(!(err instanceof ConvexError), "a ConvexError");
    assert.match(err.message, /UNAUTHENTICATED/);
    return true;
  });
});

test("POST /api/run/<area>/<module>/<function>", async () => {
  const res = await fetch(`${url}/api/run/stores/catalog/getStore`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ args: { storeId } }),
  });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.status, "success");
  assert.equal(body.value.name, "Bakery");
  const bad = await fetch(`${url}/api/run/customers/profile/getMyProfile`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ args: {} }),
  });
  const err = await bad.json();
  assert.equal(bad.status, 200);
  assert.equal(err.status, "error");
  assert.equal(err.errorData.code, "UNAUTHENTICATED");
});

test("ConvexClient: one-shot queries", async () => {
  const anon = socket();
  assert.equal((await anon.query(api.getStore, { storeId })).name, "Bakery");
  await rejectsWithCode(anon.query(api.getMyProfile, {}), "UNAUTHENTICATED");
  const user = socket(tokens.user);
  assert.equal((await user.query(api.getMyProfile, {})).name, "Noor");
});

test("ConvexClient: a subscription shows its own mutation when the mutation resolves", async () => {
  const owner = socket(tokens.owner);
  let latest;
  const unsubscribe = owner.onUpdate(api.products, firstProducts, (v) => (latest = v));
  await until(owner, api.products, firstProducts, (v) => v.page.length > 0, "first value");
  const name = unique("Live loaf");
  const id = await owner.mutation(api.createProduct, { storeId, name, price: 3.5 });
  // Convex resolves a mutation once the subscriptions it changed show it.
  assert.ok(latest.page.some((p) => p._id === id && p.name === name), `after the mutation: ${JSON.stringify(latest)}`);
  unsubscribe();
});

test("ConvexClient: a subscription follows another client's plain HTTP mutation", async () => {
  const watcher = socket();
  await until(watcher, api.products, firstProducts, (v) => v.page.length > 0, "first value");
  const name = unique("Plain loaf");
  const seen = until(watcher, api.products, firstProducts, (v) => v.page.some((p) => p.name === name), "the other client's product");
  const res = await fetch(`${url}/api/mutation`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${tokens.owner}` },
    body: JSON.stringify({ path: "stores.products.createProduct", args: { storeId, name, price: 2 } }),
  });
  assert.equal(res.status, 200); // no Convex-Client header: the contract's plain answer
  assert.match(await res.json(), /^prd_/);
  await seen;
});

test("ConvexClient: a failed payment's notification reaches an open inbox subscription within a second", async () => {
  const user = socket(tokens.user);
  const args = { paginationOpts: { numItems: 50, cursor: null } };
  const failed = (page) => page.page.filter((n) => n.type === "payment_failed").length;
  const first = await until(user, api.inbox, args, () => true, "first inbox");
  assert.equal(typeof first.continueCursor, "string");
  const before = failed(first);
  const arrived = until(user, api.inbox, args, (v) => failed(v) > before, "the payment_failed notification");
  const res = await fetch(`${url}/processor/webhook`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "processor-signature": env("FAILED_WEBHOOK_SIGNATURE") },
    body: env("FAILED_WEBHOOK_BODY"),
  });
  assert.equal(res.status, 200, await res.text());
  const start = performance.now();
  const page = await arrived;
  const elapsed = performance.now() - start;
  console.log(`payment_failed notification reached the subscription ${elapsed.toFixed(0)} ms after the webhook's answer`);
  assert.ok(elapsed < 1000, `${elapsed} ms`);
  assert.equal(page.page.find((n) => n.type === "payment_failed").priority, "high");
});

test("ConvexClient: mutation errors", async () => {
  const owner = socket(tokens.owner);
  await rejectsWithCode(owner.mutation(api.createProduct, { storeId, name: "", price: 1 }), "INVALID_ARGUMENT");
  await rejectsWithCode(socket(tokens.user).mutation(api.createProduct, { storeId, name: "Not mine", price: 1 }), "PERMISSION_DENIED");
  await rejectsWithCode(owner.mutation(api.nope, {}), "NOT_FOUND", /Could not find public function/);
  await rejectsWithCode(socket().mutation(api.upsertMyProfile, { name: "Anon" }), "UNAUTHENTICATED");
});

test("ConvexClient: an expired token", async () => {
  const changes = [];
  const client = socket();
  // (The timer is cleared: a pending one would hold node for 5 s after the tests.)
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the client was never told")), 5000);
    client.setAuth(async () => tokens.expired, (isAuthenticated) => {
      changes.push(isAuthenticated);
      if (!isAuthenticated) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  assert.deepEqual(changes, [false]);
  // The client goes on without the token.
  assert.equal((await client.query(api.getStore, { storeId })).name, "Bakery");
  await rejectsWithCode(client.query(api.getMyProfile, {}), "UNAUTHENTICATED");
});
