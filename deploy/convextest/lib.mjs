// What the tests of this directory share: the system under test (from the
// environment deploy/e2e sets), function references, clients, assertions, a
// proxy that cuts connections.
import { test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import WebSocket from "ws";
import { ConvexClient, ConvexHttpClient } from "convex/browser";
import { makeFunctionReference } from "convex/server";
import { ConvexError } from "convex/values";

export const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this through deploy/e2e (go test ./e2e -run TestConvexClients)`);
  return v;
};

export const url = env("CONVEX_URL");
export const storeId = env("STORE_ID");
export const productId = env("PRODUCT_ID");
export const tokens = {
  admin: env("ADMIN_TOKEN"),
  owner: env("OWNER_TOKEN"),
  user: env("USER_TOKEN"),
  newbie: env("NEWBIE_TOKEN"),
  flood: env("FLOOD_TOKEN"),
  expired: env("EXPIRED_TOKEN"),
};

// Function references without generated code: "<area>/<module>:<function>".
export const api = {
  listCities: makeFunctionReference("catalog/locations:listCities"),
  getStore: makeFunctionReference("stores/catalog:getStore"),
  listStores: makeFunctionReference("catalog/stores:listStores"),
  createCategory: makeFunctionReference("admins/catalog:createCategory"),
  createStore: makeFunctionReference("admins/catalog:createStore"),
  listProducts: makeFunctionReference("stores/products:listProducts"), // deprecated: the one-array listing
  products: makeFunctionReference("stores/products:listProductsPaginated"),
  createProduct: makeFunctionReference("stores/products:createProduct"),
  getMyProfile: makeFunctionReference("customers/profile:getMyProfile"),
  upsertMyProfile: makeFunctionReference("customers/profile:upsertMyProfile"),
  addItem: makeFunctionReference("customers/cart:addItem"),
  getMyOrders: makeFunctionReference("customers/orders:getMyOrders"),
  inbox: makeFunctionReference("notifications/inbox:list"),
  markRead: makeFunctionReference("notifications/inbox:markRead"),
  createInitialPlatformConfig: makeFunctionReference("admins/platformAdmin:createInitialPlatformConfig"),
  getStoreReviews: makeFunctionReference("stores/reviews:getStoreReviews"),
  getWallet: makeFunctionReference("stores/wallet:getWallet"),
  nope: makeFunctionReference("nope/nope:nope"),
};

// The arguments of the first page of the store's products (the tests' store
// holds fewer than 100).
export const firstProducts = { storeId, paginationOpts: { numItems: 100, cursor: null } };

// The deployment URL is ours, not *.convex.cloud.
export const options = { skipConvexDeploymentUrlCheck: true, logger: false };

export const http = (token) => {
  const c = new ConvexHttpClient(url, options);
  if (token) c.setAuth(token);
  return c;
};

// sockets returns a function that opens a ConvexClient (signed in with token,
// if any, and with extra options, at another address if given), and closes
// every client it opened after the calling file's tests.
export function sockets() {
  const open = [];
  test.after(async () => {
    await Promise.all(open.map((c) => c.close()));
  });
  return (token, extra = {}, address = url) => {
    const c = new ConvexClient(address, { ...options, ...extra });
    if (token) c.setAuth(async () => token);
    open.push(c);
    return c;
  };
}

export const unique = (prefix) => `${prefix} ${Date.now()} ${Math.random().toString(36).slice(2, 8)}`;

// rejectsWithCode asserts that p rejects with a ConvexError whose data.code is
// code, whose message matches message (if given) and whose data has the
// fields of details (if given).
export async function rejectsWithCode(p, code, message, details = {}) {
  await assert.rejects(p, (err) => {
    assert.ok(err instanceof ConvexError, `want a ConvexError, got ${err}`);
    assert.equal(err.data?.code, code, `data: ${JSON.stringify(err.data)}`);
    if (message) assert.match(err.message, message);
    for (const [k, v] of Object.entries(details)) assert.deepEqual(err.data[k], v, `data: ${JSON.stringify(err.data)}`);
    return true;
  });
}

// brief is a query's value for a failure message: a list by its items'
// names (or ids), a paginated subscription's with its status.
export function brief(v) {
  const label = (x) => x?.name ?? x?._id ?? x;
  if (Array.isArray(v?.results)) return JSON.stringify({ status: v.status, results: v.results.map(label) });
  return JSON.stringify(Array.isArray(v) ? v.map(label) : v);
}

// until resolves with the first value of a new subscription that satisfies cond.
export function until(client, query, args, cond, what, ms = 5000) {
  return new Promise((resolve, reject) => {
    let last;
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`${what}: not within ${ms} ms; last value ${JSON.stringify(last)}`));
    }, ms);
    const unsubscribe = client.onUpdate(query, args, (v) => {
      last = v;
      if (cond(v)) {
        clearTimeout(timer);
        unsubscribe();
        resolve(v);
      }
    }, (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

// watch keeps one subscription open (paginated, through
// onPaginatedUpdate_experimental, when initialNumItems is given) and lets a
// test wait for its values: unlike until, the subscription is the same one
// all along, so a test sees whether it stays live.
export function watch(client, query, args, initialNumItems) {
  let last;
  let failure;
  const waiters = new Set();
  const update = (v) => {
    last = v;
    for (const w of waiters) w();
  };
  const fail = (err) => {
    failure = err;
    for (const w of waiters) w();
  };
  const stop = initialNumItems === undefined
    ? client.onUpdate(query, args, update, fail)
    : client.onPaginatedUpdate_experimental(query, args, { initialNumItems }, update, fail);
  return {
    get value() {
      return last;
    },
    stop,
    // until resolves with the current or a later value that satisfies cond.
    until(cond, what, ms = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (failure) {
            done();
            reject(failure);
          } else if (last !== undefined && cond(last)) {
            done();
            resolve(last);
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${what}: not within ${ms} ms; last value ${brief(last)}`));
        }, ms);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

// eventually polls f until it returns a truthy value, and resolves with it.
export async function eventually(f, what, ms = 5000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// category creates a store category of its own with a store for each name
// (listStores sorts them by name), so that a test's paginated list holds only
// its own stores; add creates one more.
export async function category(names) {
  const admin = http(tokens.admin);
  const categoryId = await admin.mutation(api.createCategory, { name: unique("Category") });
  const add = (name) => admin.mutation(api.createStore, {
    name, ownerUserId: "owner-1", ownerName: "Omar", ownerPhone: "+971500000001", primaryCategoryId: categoryId,
  });
  for (const name of names) await add(name);
  return { categoryId, add };
}

// listing names the stores of one test: n("B"), n("D"), n("F")... sort as
// their letters. shows(letters, status) is a condition on a paginated
// subscription's value: these stores, in this order, and this status.
export function listing(prefix) {
  const tag = unique(prefix);
  const n = (letter) => `${letter} ${tag}`;
  const shows = (letters, status) => (v) =>
    v.status === status && JSON.stringify(storeNames(v)) === JSON.stringify(letters.map(n));
  return { n, shows };
}

export const storeNames = (paginated) => paginated.results.map((s) => s.name);

// recording is a WebSocket class for the client's webSocketConstructor
// option: the ws socket the client uses by default, noting the type of every
// message the client sends.
export function recording() {
  const sent = [];
  class Recording extends WebSocket {
    send(data) {
      sent.push(JSON.parse(data).type);
      super.send(data);
    }
  }
  return { sent, Recording };
}

// cutter starts a TCP proxy in front of the gateway, closed after the calling
// file's tests. A client given its url reaches the gateway through it, and the
// test plays the network: deafen loses everything the gateway sends on the
// open connections from then on; down cuts every connection (neither side
// gets a WebSocket close frame, as when a network drops) and holds new ones,
// unanswered, until up.
export async function cutter() {
  const gateway = new URL(url);
  const pairs = new Set();
  let held = null;
  let accepted = 0;
  const join = (client) => {
    const upstream = net.connect(Number(gateway.port), gateway.hostname);
    const pair = { client, upstream, deaf: false };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("data", (b) => upstream.write(b));
    upstream.on("data", (b) => {
      if (!pair.deaf) client.write(b);
    });
    for (const s of [client, upstream]) {
      s.on("error", end);
      s.on("close", end);
    }
  };
  const server = net.createServer((client) => {
    accepted++;
    if (held) {
      client.on("error", () => client.destroy());
      held.push(client);
    } else {
      join(client);
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const cut = () => {
    for (const p of [...pairs]) {
      p.client.destroy();
      p.upstream.destroy();
    }
  };
  test.after(async () => {
    cut();
    for (const c of held ?? []) c.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    // connections is how many connections clients opened through the proxy.
    get connections() {
      return accepted;
    },
    deafen() {
      for (const p of pairs) p.deaf = true;
    },
    down() {
      held = [];
      cut();
    },
    up() {
      const waiting = held;
      held = null;
      for (const c of waiting) if (!c.destroyed) join(c);
    },
  };
}
