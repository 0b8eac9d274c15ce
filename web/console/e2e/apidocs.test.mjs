// The API reference (GET /docs) in a real browser: Debian's Chromium driven
// by playwright-core against the system deploy/e2e (TestAPIDocsInBrowser)
// starts in-process. Every request the page makes is recorded; one to any
// host but the gateway's is aborted and fails the test, as does any console
// error (a refusal by the page's Content-Security-Policy is one) or a
// serious or critical axe-core violation.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { accessible, env, launch, WAIT } from "./browser.mjs";

const URL = env("CONSOLE_URL");
const gateway = new globalThis.URL(URL).host;

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/**
 * A page whose every request is recorded (requests): the gateway's own go
 * on, any other host's is recorded in outside and never sent; its errors
 * and its policy's refusals are recorded too.
 */
async function watched() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: "en-US" });
  context.setDefaultTimeout(WAIT.timeout);
  const requests = [];
  const outside = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    requests.push(url);
    if (new globalThis.URL(url).host === gateway) return route.continue();
    outside.push(url);
    return route.abort("blockedbyclient");
  });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console error: ${m.text()}`));
  // What the policy refused, even where nothing is logged.
  await page.addInitScript(() => {
    window.__refused = [];
    document.addEventListener("securitypolicyviolation", (e) => window.__refused.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}:${e.columnNumber} ${e.sample}`));
  });
  return { context, page, requests, outside, problems };
}

// Scalar draws what the page shows in idle time (each block after its
// neighbours, its copy buttons with it): the reference is judged once nothing
// changed for this long.
// Scalar is vendored unmodified (ADR 0138): its example-response cards are
// regions that repeat one label (axe's moderate landmark-unique), which only
// a change to Scalar could fix; every other rule holds.
const RENDERED = { quiet: 2_000, except: ["landmark-unique"] };

// The sidebar's groups, in order: the areas' operations (their own paths),
// the gateway's and the services' routes, then, apart, the same operations
// for Convex's clients (/api/run), then Scalar's list of schemas.
const GROUPS = ["admins", "catalog", "customers", "notifications", "stores", "Gateway and HTTP routes", "Convex clients", "Models"];
const CONVEX_TAGS = ["admins", "catalog", "customers", "notifications", "stores", "gateway"];

/** The names of the sidebar's open or closed groups and tags, in order. */
async function groupNames(sidebar) {
  const names = await sidebar.getByRole("button", { name: /^(Open|Close) Group - / }).evaluateAll((bs) => bs.map((b) => b.textContent));
  return names.map((n) => n.replace(/^(Open|Close) Group - /, ""));
}

test("/docs renders the gateway's operations with no request leaving the machine", async () => {
  const { context, page, requests, outside, problems } = await watched();
  await page.goto(`${URL}/docs`);
  const sidebar = page.getByRole("complementary", { name: /^Sidebar/ });
  await sidebar.getByRole("button", { name: "Open Group - Convex clients", exact: true }).waitFor(WAIT);
  // The groups, the Convex clients' apart and after the others (folded:
  // none of its entries is drawn until it is opened).
  assert.deepEqual(
    (await groupNames(sidebar)).filter((n) => GROUPS.includes(n)),
    GROUPS,
    "the sidebar's groups",
  );
  assert.equal(await sidebar.getByRole("link", { name: /^stores\/reviews:addReview\s/ }).count(), 0, "the Convex clients' group is folded");
  // Placeholders show as code, not swallowed as HTML tags (/api/query///).
  const intro = await page.locator("body").innerText();
  for (const swallowed of ["/api/query///", "/api/mutation///", "/api/run///", "/api//sync"]) {
    assert.ok(!intro.includes(swallowed), `the page shows ${swallowed}`);
  }
  for (const placeholder of ["POST /api/query/<area>/<module>/<function>", "/api/<client version>/sync", "<area>.<module>.<function>"]) {
    await page.locator("code", { hasText: placeholder }).first().waitFor(WAIT);
  }
  // The stores' group, its reviews module, addReview's entry named by its
  // path; its own section under that name, the declaration's text below.
  await sidebar.getByRole("button", { name: "Open Group - stores", exact: true }).click();
  await sidebar.getByRole("button", { name: "Open Group - stores.reviews", exact: true }).click();
  // Every operation of the module, by its path, in alphabetical order
  // (queries and mutations together), as the document tags them.
  const doc = await (await fetch(`${URL}/api/openapi.json`)).json();
  const tagged = Object.values(doc.paths)
    .flatMap((item) => Object.values(item))
    .filter((op) => op.tags?.includes("stores.reviews"))
    .map((op) => op.summary)
    .sort((a, b) => a.localeCompare(b));
  assert.ok(tagged.includes("stores.reviews.addReview") && tagged.includes("stores.reviews.getStoreReviews"), `stores.reviews: ${tagged}`);
  const entries = sidebar.getByRole("link", { name: /^stores\.reviews\.\w+\s/ });
  await entries.first().waitFor(WAIT);
  // Each link reads its title, then its method ("HTTP Method: POST").
  const names = (await entries.allInnerTexts()).map((t) => t.trim().split(/\s/)[0]);
  assert.deepEqual(names, tagged, "stores.reviews' entries");
  await sidebar.getByRole("link", { name: /^stores\.reviews\.addReview\s/ }).click();
  const heading = page.getByRole("heading", { name: /^stores\.reviews\.addReview\W*$/ });
  await heading.waitFor(WAIT);
  const operation = heading.locator("xpath=ancestor::section[1]");
  await operation.getByText(/^Review a store as the caller/).first().waitFor(WAIT);
  // Drawn in full: the request's example (curl) and the answer's (its fields).
  await operation.getByText(/curl/).first().waitFor(WAIT);
  await operation.getByText(/"reviewId"/).first().waitFor(WAIT);
  // The Convex clients' group: a tag per area, the entries named as
  // Convex's clients name them, on /api/run.
  await sidebar.getByRole("button", { name: "Open Group - Convex clients", exact: true }).click();
  const convex = sidebar.getByRole("listitem").filter({ has: page.getByRole("button", { name: "Close Group - Convex clients", exact: true }) });
  await convex.getByRole("button", { name: "Open Group - gateway", exact: true }).waitFor(WAIT);
  assert.deepEqual((await groupNames(convex)).slice(1), CONVEX_TAGS, "the Convex clients' tags");
  await convex.getByRole("button", { name: "Open Group - stores", exact: true }).click();
  const run = convex.getByRole("link", { name: /^stores\/reviews:addReview\s/ });
  await run.waitFor(WAIT);
  assert.match(await run.getAttribute("href"), /\/api\/run\/stores\/reviews\/addReview$/);
  assert.equal(await convex.getByRole("link", { name: /^stores\.reviews\./ }).count(), 0, "an operation's own path in the Convex clients' group");
  await sidebar.getByRole("link", { name: /^stores\.reviews\.addReview\s/ }).click();
  await heading.waitFor(WAIT);
  console.log(`REQUESTS ${requests.length}: ${requests.join(" ")}`);
  const refused = await page.evaluate(() => window.__refused);
  assert.deepEqual(outside, [], "requests to other hosts");
  assert.deepEqual(refused, [], "refused by the Content-Security-Policy");
  assert.deepEqual(problems, [], "errors on the page");
  assert.ok(requests.some((u) => u.endsWith("/api/openapi.json")), `the page read the OpenAPI document: ${requests.join(", ")}`);
  await accessible(page, "/docs (light)", RENDERED);
  // Into this run's folder only: the reference is no screen of the console's documentation.
  await page.screenshot({ path: join(env("SCREENSHOTS"), "api-reference.png") });
  // The code blocks' copy buttons say what they copy (a screen reader reads
  // the name; axe above judged every button drawn by then).
  for (const name of ["Copy cURL code", "Copy JSON code"]) {
    assert.ok((await operation.getByRole("button", { name, exact: true }).count()) > 0, `addReview's section has no button named "${name}"`);
  }
  // Scalar follows the system's colour scheme: the dark one too.
  await page.emulateMedia({ colorScheme: "dark" });
  await page.locator("body.dark-mode").waitFor({ state: "attached", ...WAIT });
  await accessible(page, "/docs (dark)", RENDERED);
  assert.deepEqual(outside, [], "requests to other hosts");
  assert.deepEqual(problems, [], "errors on the page");
  await context.close();
});

test("/ lists the gateway's pages, reachable, with nothing loaded from elsewhere", async () => {
  const { context, page, outside, problems } = await watched();
  await page.goto(`${URL}/`);
  await page.getByRole("heading", { name: "Marketplace API" }).waitFor(WAIT);
  await accessible(page, "/");
  await page.getByRole("link", { name: "API reference" }).click();
  await page.waitForURL(`${URL}/docs`, WAIT);
  await page.getByRole("button", { name: "Open Group - Convex clients", exact: true }).waitFor(WAIT);
  assert.deepEqual(outside, [], "requests to other hosts");
  assert.deepEqual(await page.evaluate(() => window.__refused), [], "refused by the Content-Security-Policy");
  assert.deepEqual(problems, [], "errors on the page");
  await context.close();
});
