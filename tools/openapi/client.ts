// A client generated from the gateway's OpenAPI document, as an app
// developer makes one: openapi-typescript wrote ./api.d.ts beside this file
// (deploy/e2e TestGeneratedClientSeesErrors copies both into a folder of
// their own), openapi-fetch calls the operations' own paths. Type-level
// checks below fail to compile if the document's types go wrong; the calls
// print what they saw, as JSON, for the Go test to judge, and exit non-zero
// on a wrong answer.
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

const baseUrl = process.env.MARKETPLACE_URL;
const token = process.env.MARKETPLACE_TOKEN;
if (!baseUrl || !token) {
  throw new Error("set MARKETPLACE_URL and MARKETPLACE_TOKEN");
}
const anonymous = createClient<paths>({ baseUrl });
const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });

// Types: an always-present field of a return value is not optional; the
// error body has the contract's codes and typed details.
type Profile = NonNullable<
  paths["/api/query/customers/profile/getMyProfile"]["post"]["responses"][200]["content"]["application/json"]
>;
type IsOptional<T, K extends keyof T> = {} extends Pick<T, K> ? true : false;
const userIdIsRequired: IsOptional<Profile, "userId"> = false;
const phoneIsNullable: null extends Profile["phone"] ? true : false = true;
type Details = components["schemas"]["ErrorDetails"];
const fieldIsTyped: [Details["field"]] extends [never] ? false : true = true;
const fieldIsAString: Details["field"] extends string | undefined ? true : false = true;
void [userIdIsRequired, phoneIsNullable, fieldIsTyped, fieldIsAString];

const seen: Record<string, unknown> = {};
function fail(why: string): never {
  console.log(JSON.stringify(seen));
  console.error(why);
  process.exit(1);
}

// 1. A mutation and a query that succeed.
const created = await client.POST("/api/mutation/customers/profile/upsertMyProfile", {
  body: { name: "Generated Client" },
  headers: { "Idempotency-Key": "openapi-client-1" },
});
if (created.error) fail(`upsertMyProfile failed: ${JSON.stringify(created.error)}`);
const profileId: string = created.data;
const got = await client.POST("/api/query/customers/profile/getMyProfile", { body: {} });
if (got.error) fail(`getMyProfile failed: ${JSON.stringify(got.error)}`);
if (got.data === null) fail("getMyProfile answered null after upsertMyProfile");
const userId: string = got.data.userId; // compiles only if userId is not optional
seen.success = { status: got.response.status, profileId, id: got.data._id, userId, name: got.data.name };

// 2. Bad arguments: a compile error, and at run time INVALID_ARGUMENT with
// HTTP 400 seen as `error`.
const bad = await client.POST("/api/mutation/customers/profile/upsertMyProfile", {
  // @ts-expect-error name is a string
  body: { name: 42 },
});
if (bad.data !== undefined) fail(`bad arguments answered data: ${JSON.stringify(bad.data)}`);
if (!bad.error) fail("bad arguments: no error");
const code: components["schemas"]["ErrorCode"] = bad.error.error.code;
const field: string | undefined = bad.error.error.details?.field;
seen.badArguments = { status: bad.response.status, code, field, message: bad.error.error.message };

// 3. No token where one is needed: UNAUTHENTICATED with HTTP 401.
const anon = await anonymous.POST("/api/query/customers/profile/getMyProfile", { body: {} });
if (!anon.error) fail("anonymous getMyProfile: no error");
seen.anonymous = { status: anon.response.status, code: anon.error.error.code };

console.log(JSON.stringify(seen));
