// ConvexClient across lost connections: the client reconnects with the same
// session id, adds its whole query set again (every page of a paginated
// subscription, at its cursor) and sends again every mutation it has no answer
// for; the gateway runs the queries on the new socket and answers a mutation
// sent again with its first run's outcome (its Idempotency-Key is the session
// and request id), without applying it twice.
import { test } from "node:test";
import assert from "node:assert/strict";
import WebSocket from "ws";
import { api, category, cutter, eventually, firstProducts, http, listing, recording, sockets, storeId, tokens, unique, watch } from "./lib.mjs";

const socket = sockets();

// A socket that dies after the server applied a mutation and before the
// client read its answer.
test("ConvexClient: a reconnect does not apply a mutation twice", async () => {
  const log = { sent: 0, dropped: [] };
  class DroppingSocket extends WebSocket {
    send(data) {
      if (JSON.parse(data).type === "Mutation") log.sent++;
      super.send(data);
    }
    set onmessage(handler) {
      super.onmessage = (event) => {
        const msg = JSON.parse(event.data);
        if (msg.type === "MutationResponse" && log.dropped.length === 0) {
          log.dropped.push(msg); // lost with the connection
          this.terminate();
          return;
        }
        handler(event);
      };
    }
    get onmessage() {
      return super.onmessage;
    }
  }
  const owner = socket(tokens.owner, { webSocketConstructor: DroppingSocket });
  const name = unique("Once loaf");
  const id = await owner.mutation(api.createProduct, { storeId, name, price: 5 });
  assert.equal(log.dropped.length, 1);
  assert.equal(log.dropped[0].success, true, "the first run was applied");
  assert.equal(log.dropped[0].result, id, "the replay answered the first run's outcome");
  assert.equal(log.sent, 2, "the mutation is sent once, and once more after the reconnect");
  const products = (await http().query(api.products, firstProducts)).page;
  assert.equal(products.filter((p) => p.name === name).length, 1);
});

// The network loses the gateway's answers, then the connection itself (the
// proxy of lib.mjs): the client learns of it only when the TCP connection
// ends, and reconnects after its backoff (about a second).
test("ConvexClient: after a cut connection, plain and paginated subscriptions are live again and an unanswered mutation is applied once", async () => {
  const network = await cutter();
  const { sent, Recording } = recording();
  const owner = socket(tokens.owner, { webSocketConstructor: Recording }, network.url);
  const ownerHttp = http(tokens.owner);
  const { n, shows } = listing("Reconnect");
  const { categoryId, add } = await category(["B", "D", "F"].map(n));
  const products = watch(owner, api.products, firstProducts);
  const stores = watch(owner, api.listStores, { categoryId }, 2);
  await products.until((v) => v.page.length > 0, "the products");
  const first = await stores.until(shows(["B", "D"], "CanLoadMore"), "the first page");
  assert.equal(first.loadMore(2), true);
  await stores.until(shows(["B", "D", "F"], "Exhausted"), "the second page");

  // Nothing the gateway sends reaches the client any more: its mutation
  // arrives and is applied, the answer is lost.
  network.deafen();
  const name = unique("Unanswered loaf");
  let answered = false;
  const pending = owner.mutation(api.createProduct, { storeId, name, price: 6 });
  pending.then(() => (answered = true), () => (answered = true));
  const applied = await eventually(
    async () => (await http().query(api.products, firstProducts)).page.find((p) => p.name === name),
    "the mutation applied by its first send",
  );
  assert.equal(answered, false, "the mutation was answered through a deaf connection");

  // The connection drops; while the client is away, other clients write.
  network.down();
  const away = unique("Away loaf");
  await ownerHttp.mutation(api.createProduct, { storeId, name: away, price: 7 });
  await add(n("E"));
  network.up();
  assert.equal(await pending, applied._id, "the mutation resolved with its first run's outcome");
  await products.until((v) => v.page.some((p) => p.name === away), "a product added while the client was away");
  await stores.until(shows(["B", "D", "E", "F"], "Exhausted"), "a store added while the client was away, on the loaded second page");

  // After the reconnect, writes show live on the new socket.
  const after = unique("After loaf");
  await ownerHttp.mutation(api.createProduct, { storeId, name: after, price: 8 });
  await products.until((v) => v.page.some((p) => p.name === after), "a product added after the reconnect");
  await add(n("H"));
  await stores.until(shows(["B", "D", "E", "F"], "CanLoadMore"), "a store added after the reconnect: more to load");

  // One reconnect, on which the mutation went once more; applied once.
  assert.equal(network.connections, 2, "connections through the proxy");
  assert.equal(owner.connectionState().connectionCount, 2, "the client's connections");
  assert.equal(sent.filter((t) => t === "Mutation").length, 2, `the client sent: ${sent.join(", ")}`);
  const now = (await http().query(api.products, firstProducts)).page;
  assert.equal(now.filter((p) => p.name === name).length, 1, "the mutation applied once");
  assert.equal(products.value.page.filter((p) => p.name === name).length, 1, "the subscription shows it once");
  products.stop();
  stores.stop();
});
