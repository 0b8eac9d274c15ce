// What the tests of this directory share: the system under test (from the
// environment deploy/e2e sets), function references, clients, assertions.
import assert from "node:assert/strict";
import { ConvexHttpClient } from "convex/browser";
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
  listProducts: makeFunctionReference("stores/products:listProducts"),
  createProduct: makeFunctionReference("stores/products:createProduct"),
  getMyProfile: makeFunctionReference("customers/profile:getMyProfile"),
  upsertMyProfile: makeFunctionReference("customers/profile:upsertMyProfile"),
  addItem: makeFunctionReference("customers/cart:addItem"),
  inbox: makeFunctionReference("notifications/inbox:list"),
  markRead: makeFunctionReference("notifications/inbox:markRead"),
  createInitialPlatformConfig: makeFunctionReference("admins/platformAdmin:createInitialPlatformConfig"),
  getStoreReviews: makeFunctionReference("stores/reviews:getStoreReviews"),
  getWallet: makeFunctionReference("stores/wallet:getWallet"),
  nope: makeFunctionReference("nope/nope:nope"),
};

// The deployment URL is ours, not *.convex.cloud.
export const options = { skipConvexDeploymentUrlCheck: true, logger: false };

export const http = (token) => {
  const c = new ConvexHttpClient(url, options);
  if (token) c.setAuth(token);
  return c;
};

// rejectsWithCode asserts that p rejects with a ConvexError whose data.code is code.
export async function rejectsWithCode(p, code, message) {
  await assert.rejects(p, (err) => {
    assert.ok(err instanceof ConvexError, `want a ConvexError, got ${err}`);
    assert.equal(err.data?.code, code, `data: ${JSON.stringify(err.data)}`);
    if (message) assert.match(err.message, message);
    return true;
  });
}
