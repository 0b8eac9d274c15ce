// Production sign-in in a real browser: OpenID Connect authorization code
// with PKCE (oidc-client-ts) against a real OpenID provider on loopback
// (deploy/oidcprovider, zitadel/oidc's example server issuing the platform's
// tokens), driven by deploy/e2e TestConsoleSignInWithOpenIDProviderInBrowser. The
// gateway verifies the tokens through the provider's keys (AUTH_JWKS_URL);
// development tokens are not accepted there.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { accessible, call, env, launch, open, shot, WAIT } from "./browser.mjs";

const ISSUER = env("OIDC_ISSUER");
let browser;
/** The store owner's real token from the provider (the second test). */
let ownerToken;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Through the provider's own login screen, back to the console with a code. */
async function signIn(page, username) {
  const button = page.getByRole("button", { name: `Sign in with ${new URL(ISSUER).host}` });
  await button.waitFor(WAIT);
  await button.click();
  await page.waitForURL((u) => u.href.startsWith(ISSUER), WAIT);
  await page.locator("#username").fill(username);
  await page.locator("#password").fill("verysecure");
  await page.getByRole("button", { name: "Login" }).click();
}

async function tokenOf(page) {
  return page.evaluate(() => sessionStorage.getItem("marketplace.token"));
}

/**
 * The page's token once it has 8 s or more to live, for calls made with it:
 * the provider's tokens last 20 s and the console renews them about 10 s
 * ahead, so one read at any moment may be about to expire (on a loaded
 * machine, before the call reaches the gateway).
 */
async function liveToken(page) {
  const token = await page.waitForFunction(
    () => {
      const t = sessionStorage.getItem("marketplace.token");
      const claims = t && JSON.parse(atob(t.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
      return claims && claims.exp * 1000 - Date.now() >= 8_000 ? t : null;
    },
    null,
    WAIT,
  );
  return token.jsonValue();
}

test("an administrator signs in through the OpenID provider (code flow with PKCE) and reaches the console", async () => {
  const page = await open(browser, "/admin/");
  await page.getByRole("heading", { name: /Sign in/ }).waitFor(WAIT);
  await accessible(page, "sign-in with a provider");
  await shot(page, "signin-oidc-en");
  // The request the console sends to the provider: the code flow with PKCE (S256).
  const authorize = page.waitForRequest((r) => r.url().startsWith(`${ISSUER}/auth`), WAIT);
  const signingIn = signIn(page, "admin@marketplace.test");
  const q = new URL((await authorize).url()).searchParams;
  assert.equal(q.get("response_type"), "code");
  assert.equal(q.get("client_id"), env("OIDC_CLIENT_ID"));
  assert.equal(q.get("code_challenge_method"), "S256");
  assert.ok((q.get("code_challenge") ?? "").length >= 43, "no PKCE challenge");
  assert.ok(q.get("state"), "no state");
  await signingIn;

  await page.getByRole("heading", { name: "Payout queue" }).waitFor(WAIT);
  await page.getByTestId("signed-in-as").filter({ hasText: "admin-1" }).waitFor(WAIT);
  // The code and state left the address bar.
  assert.equal(new URL(page.url()).search, "");
  // The token is the provider's (RS256, its issuer, the console's audience) and the gateway takes it.
  const token = await tokenOf(page);
  const [head, claims] = token.split(".").slice(0, 2).map((p) => JSON.parse(Buffer.from(p, "base64url").toString()));
  assert.equal(head.alg, "RS256");
  assert.equal(claims.iss, ISSUER);
  assert.equal(claims.sub, "admin-1");
  assert.deepEqual(claims.roles, ["admin"]);
  await call("mutation", await liveToken(page), "admins.platformAdmin.createInitialPlatformConfig", { adminUserId: "admin-1" });
  const store = await call("mutation", await liveToken(page), "admins.catalog.createStore", {
    name: "Al Noor Bakery",
    ownerUserId: "owner-1",
    ownerName: "Sara Al Marri",
    ownerPhone: "+971501234567",
  });
  assert.match(store, /\w/);
  // A development token is not accepted where the provider verifies tokens.
  await assert.rejects(call("query", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbi0xIiwicm9sZXMiOlsiYWRtaW4iXX0.x", "catalog.categories.listCategories", {}), /401|UNAUTHENTICATED/);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("a store owner signs in through the provider and reaches the portal; the console says it is not theirs", async () => {
  const page = await open(browser, "/store/");
  await signIn(page, "owner@marketplace.test");
  await page.getByTestId("store-name").filter({ hasText: "Al Noor Bakery" }).waitFor(WAIT);
  await page.getByTestId("signed-in-as").filter({ hasText: "owner-1" }).waitFor(WAIT);
  // The portal's first screen, the dashboard.
  await page.getByTestId("card-today").waitFor(WAIT);
  await accessible(page, "portal signed in through the provider");

  // The same tab at the console: a screen the role may not use says so.
  const token = await liveToken(page);
  ownerToken = token;
  await page.goto(`${env("CONSOLE_URL")}/admin/`);
  await page.getByTestId("denied").waitFor(WAIT);
  assert.match(await page.getByTestId("denied").innerText(), /for administrators.*owner-1/);
  assert.deepEqual(page.problems, []);
  await page.context().close();

  // A sign-in link carrying this real token, opened by someone else: where a
  // provider is configured, links are off, or the link would sign its
  // opener in as owner-1. The fragment leaves the address bar, unused.
  const victim = await open(browser, "/store/", token);
  await victim.getByText("Sign-in links are for development and are off here").waitFor(WAIT);
  await victim.getByRole("button", { name: `Sign in with ${new URL(ISSUER).host}` }).waitFor(WAIT);
  // Nor is a pasted token taken: only the provider signs in here.
  assert.equal(await victim.getByTestId("token-input").count(), 0);
  assert.equal(new URL(victim.url()).hash, "");
  assert.equal(await tokenOf(victim), null);
  assert.equal(await victim.getByTestId("signed-in-as").count(), 0);
  await accessible(victim, "a sign-in link refused");
  assert.deepEqual(victim.problems, []);
  await victim.context().close();
});

test("outside development mode a link signs no one in, even where the console names no provider", async () => {
  // A second system verifies the same provider's tokens (AUTH_JWKS_URL) but
  // its console is not told of the provider (no CONSOLE_OIDC_*). The owner's
  // real token in a crafted link would sign its opener in as owner-1: the
  // gateway says development tokens are not taken here (devSignIn false),
  // so the console drops the link and takes no pasted token either.
  assert.ok(ownerToken, "no owner token from the previous test");
  const base = env("JWKS_ONLY_URL");
  const settings = await (await fetch(`${base}/console/config.json`)).json();
  assert.deepEqual(settings, { oidc: null, devSignIn: false });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: "en-US", timezoneId: "Europe/London" });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  await page.goto(`${base}/store/#token=${ownerToken}`);
  await page.getByText("Sign-in links are for development and are off here. The link was not used.").waitFor(WAIT);
  await page.getByTestId("signin-unavailable").filter({ hasText: "CONSOLE_OIDC_ISSUER" }).waitFor(WAIT);
  assert.equal(await page.getByTestId("token-input").count(), 0);
  assert.equal(new URL(page.url()).hash, "");
  assert.equal(await tokenOf(page), null);
  assert.equal(await page.getByTestId("signed-in-as").count(), 0);
  await accessible(page, "a sign-in link refused without a provider");
  await shot(page, "signin-link-refused");
  assert.deepEqual(problems, []);
  await context.close();
});

test("an expired session is renewed with the provider's refresh token: no dialog, no reload, the form goes through", async () => {
  const page = await open(browser, "/store/");
  await signIn(page, "owner@marketplace.test");
  // The provider returns to the area's first screen.
  await page.getByTestId("store-name").waitFor(WAIT);
  await page.getByRole("navigation").getByRole("link", { name: "Products", exact: true }).click();
  const form = page.locator("form", { has: page.getByTestId("create-product") });
  await form.locator('input[name="name"]').waitFor(WAIT);
  await page.evaluate(() => (window.__sameDocument = true));
  const first = await tokenOf(page);
  const exp = (t) => JSON.parse(Buffer.from(t.split(".")[1], "base64url").toString()).exp;
  await form.locator('input[name="name"]').fill("Saffron rusks");
  await form.locator('input[name="price"]').fill("18");

  // The provider's tokens last 20 s: the console renews before or when the gateway ends the session.
  await page.waitForFunction((t) => sessionStorage.getItem("marketplace.token") !== t, first, { timeout: 60_000 });
  const renewed = await tokenOf(page);
  assert.ok(exp(renewed) > exp(first), "the renewed token does not outlive the first");
  assert.equal(await page.getByRole("dialog").count(), 0, "the sign-in dialog appeared");
  // Past the first token's expiry, the live socket runs on the renewed one.
  await page.waitForFunction((e) => Date.now() / 1000 > e + 1, exp(first), { timeout: 60_000 });
  assert.equal(await form.locator('input[name="name"]').inputValue(), "Saffron rusks");
  await form.getByTestId("create-product").click();
  await page.getByText("Product added.").waitFor(WAIT);
  await page.locator("[data-testid=products] tr[data-product]", { hasText: "Saffron rusks" }).waitFor(WAIT);
  assert.equal(await page.getByRole("dialog").count(), 0, "the sign-in dialog appeared");
  assert.equal(await page.evaluate(() => window.__sameDocument), true, "the page reloaded");
  assert.deepEqual(page.problems, []);
  await page.context().close();
});
