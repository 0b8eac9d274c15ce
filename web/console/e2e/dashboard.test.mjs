// The owner's dashboard and notifications in the viewer's language (issue
// 32, items 4 and 6) in a real browser (deploy/e2e TestDashboardInBrowser
// starts the system and makes the store's orders): the day's, week's and
// month's sales equal the orders the Go side made; the chart's figures, the
// week view, the top product, the orders by status and the releases agree
// with the API; in Arabic the notifications read in Arabic, with Latin text
// only inside isolated names and figures; axe-core on every page, at 1280
// and 390 px wide.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { accessible, bothLanguages, call, env, launch, noSideScroll, open, shot, text, until, WAIT } from "./browser.mjs";

const STORE = env("STORE_ID");
const OWNER = env("OWNER_TOKEN");
const DAY_MS = 86_400_000;
const DUBAI_MS = 4 * 3_600_000;
/** Today's Dubai date, YYYY-MM-DD (the figures' data-day). */
const today = () => new Date(Math.floor((Date.now() + DUBAI_MS) / DAY_MS) * DAY_MS).toISOString().slice(0, 10);

let browser;
let page;
before(async () => {
  browser = await launch();
  // The portal's first screen is the dashboard.
  page = await open(browser, "/store/", OWNER);
  await page.getByTestId("card-today").waitFor(WAIT);
  assert.match(page.url(), /\/store\/dashboard$/);
});
after(async () => {
  try {
    assert.deepEqual(page?.problems ?? [], []);
  } finally {
    await browser?.close();
  }
});

const attr = (locator, name) => locator.getAttribute(name);
const nav = (name) => page.getByRole("navigation").getByRole("link", { name, exact: true }).click();

/** The page at a phone's width, checked, then back at 1280. */
async function atPhoneWidth(name, check) {
  await page.setViewportSize({ width: 390, height: 844 });
  if (check) await check();
  await accessible(page, `${name} at 390 px`);
  await noSideScroll(page, name);
  await shot(page, `${name}-390`);
  await page.setViewportSize({ width: 1280, height: 860 });
}

test("the dashboard's figures are the orders'", async () => {
  const gross = env("TODAY_GROSS");
  const orders = env("TODAY_ORDERS");
  for (const card of ["today", "week", "month"]) {
    // Every order was made today: the week's and the month's are today's.
    await until(async () => [await attr(page.getByTestId(`card-${card}`), "data-gross"), await attr(page.getByTestId(`card-${card}`), "data-orders")], [String(Number(gross)), orders], `${card}'s sales`);
  }
  assert.match(await text(page.getByTestId("card-today")), new RegExp(gross.replace(".", "\\.")));
  // The chart's figures: one row a day of the last 30, today's the orders'.
  const rows = page.locator('[data-testid="dash-figures"] tr[data-day]');
  await until(() => rows.count(), 30, "30 days of figures");
  const day = page.locator(`[data-testid="dash-figures"] tr[data-day="${today()}"]`);
  assert.equal(await attr(day, "data-gross"), String(Number(gross)));
  assert.equal(await attr(day, "data-orders"), orders);

  // By week: the current week's row holds the same.
  await page.getByTestId("dash-granularity").getByText("By week").click();
  await until(async () => (await rows.count()) >= 5 && (await rows.count()) <= 6, true, "the weeks of 30 days");
  const last = rows.last();
  assert.equal(await attr(last, "data-gross"), String(Number(gross)));
  assert.equal(await attr(last, "data-orders"), orders);
  await page.getByTestId("dash-range").getByText("7 days").click();
  await until(async () => (await rows.count()) >= 1 && (await rows.count()) <= 2, true, "the weeks of 7 days");
  await page.getByTestId("dash-granularity").getByText("By day").click();
  await until(() => rows.count(), 7, "7 days of figures");

  // The top product, its name isolated; the orders by status, each a link to the Orders screen on it.
  const top = page.locator('[data-testid="dash-top"] tr[data-product]').first();
  assert.equal(await attr(top, "data-product"), env("TOP_PRODUCT"));
  assert.equal(await top.locator("bdi").first().innerText(), env("TOP_NAME"));
  const byStatus = JSON.parse(env("BY_STATUS"));
  for (const [status, n] of Object.entries(byStatus)) {
    const row = page.locator(`[data-testid="dash-by-status"] [data-status="${status}"]`);
    assert.equal(await attr(row, "data-count"), String(n), `orders ${status}`);
    // The link keeps the dashboard's days (the last 30, in Dubai), so Orders counts what the badge says.
    const href = new URL(await row.getByRole("link").getAttribute("href"), "http://x");
    assert.equal(href.pathname, "/store/orders");
    assert.equal(href.searchParams.get("status"), status);
    assert.match(href.searchParams.get("from") ?? "", /^\d{4}-\d{2}-\d{2}$/, `orders ${status}: the link's first day`);
    assert.match(href.searchParams.get("to") ?? "", /^\d{4}-\d{2}-\d{2}$/, `orders ${status}: the link's last day`);
  }

  // What is to be released, and when: the API's.
  const api = await call("query", OWNER, "stores.wallet.getUpcomingReleases", { storeId: STORE });
  assert.ok(api.releases.length >= 1, `releases: ${JSON.stringify(api)}`);
  const releases = page.locator('[data-testid="dash-releases"] tr[data-day]');
  await until(() => releases.count(), api.releases.length, "the releases");
  for (const [i, r] of api.releases.entries()) {
    const row = releases.nth(i);
    assert.deepEqual([await attr(row, "data-day"), Number(await attr(row, "data-amount")), Number(await attr(row, "data-count"))], [r.day, r.amount, r.count]);
  }

  await bothLanguages(page, "portal-dashboard", async (lang) => {
    if (lang === "ar") assert.equal(await page.locator("html").getAttribute("dir"), "rtl");
  });
  await atPhoneWidth("portal-dashboard", () => page.getByTestId("card-today").waitFor(WAIT));

  // A by-status link lands on the Orders screen filtered by that status, kept in the address.
  await page.locator('[data-testid="dash-by-status"] [data-status="preparing"]').getByRole("link").click();
  await page.waitForURL(/\/store\/orders\?status=preparing&from=\d{4}-\d{2}-\d{2}&to=\d{4}-\d{2}-\d{2}$/);
  const listed = page.locator('[data-testid="orders"] tr[data-order]');
  await until(async () => [await listed.count(), await attr(listed.first(), "data-status")], [1, "preparing"], "the preparing orders");
  assert.equal(await attr(listed.first(), "data-order"), env("PREPARING_ORDER"));
  assert.equal(await page.getByTestId("order-filter").locator("input:checked").getAttribute("value"), "preparing");
  // The screen's title names the store, isolated (FSI … PDI in the document's title).
  assert.equal(await page.title(), "Orders: \u2068Bakery\u2069");
  await page.getByTestId("order-filter").getByText("All", { exact: true }).click();
  await until(() => listed.count(), 3, "every order");
  assert.match(page.url(), /\/store\/orders\?from=\d{4}-\d{2}-\d{2}&to=\d{4}-\d{2}-\d{2}$/);
});

test("a store over the sales summary's cap gets a partial dashboard: each refused part says why, the others show", async () => {
  const busy = await open(browser, "/store/dashboard", env("BUSY_OWNER_TOKEN"));
  try {
    const refused = busy.getByTestId("dash-refused");
    await until(() => refused.count(), 4, "the refused parts");
    const parts = [];
    for (let i = 0; i < 4; i++) {
      assert.equal(await attr(refused.nth(i), "data-reason"), "too_many_orders");
      assert.match(await text(refused.nth(i)), /more than 3 orders/);
      parts.push(await attr(refused.nth(i), "data-part"));
    }
    assert.deepEqual(parts.sort(), ["card-title", "dash-chart", "dash-status-title", "dash-top-title"]);
    // The rating and the releases do not depend on the orders' count: shown.
    await busy.getByTestId("dash-rating").waitFor(WAIT);
    await busy.getByTestId("dash-releases-empty").waitFor(WAIT);
    await accessible(busy, "a partial dashboard");
    await shot(busy, "portal-dashboard-partial");
  } finally {
    await busy.context().close();
  }
});

test("the owner's notifications read in Arabic, Latin only in isolated names and figures; the unread badge counts", async () => {
  const unread = await call("query", OWNER, "notifications.inbox.countUnread", {});
  assert.ok(unread.count >= 4, `unread ${JSON.stringify(unread)}`);
  const badge = page.getByRole("navigation").getByTestId("unread-count");
  await until(() => attr(badge, "data-count"), String(unread.count), "the unread badge");

  await nav("Notifications");
  const notes = page.locator('[data-testid="notifications"] article[data-notification]');
  await until(async () => (await notes.count()) >= 4, true, "the notifications");
  await page.getByTestId("language").first().click();
  await page.locator('html[lang="ar"]').waitFor(WAIT);
  const n = await notes.count();
  for (let i = 0; i < n; i++) {
    const note = notes.nth(i);
    assert.equal(await attr(note, "data-rendered"), "params", `notification ${i} is rendered from its params`);
    for (const part of ["note-title", "note-body"]) {
      const s = await note.getByTestId(part).innerText();
      // Outside the isolates (U+2068 … U+2069: names, amounts, dates), Arabic only.
      const outside = s.replace(/\u2068[^\u2069]*\u2069/g, "");
      assert.doesNotMatch(outside, /[A-Za-z]/, `${part} of ${await attr(note, "data-type")}: "${s}"`);
      assert.match(outside, /[\u0600-\u06ff]/, `${part} of ${await attr(note, "data-type")} has Arabic: "${s}"`);
    }
  }
  const bank = page.locator('article[data-type="bank_account_changed"]');
  assert.match(await bank.getByTestId("note-body").innerText(), new RegExp(`\u2068${env("IBAN_LAST4")}\u2069`));
  const order = page.locator('article[data-type="new_order"]').first();
  assert.match(await order.getByTestId("note-body").innerText(), /\u2068Bakery\u2069/);
  await accessible(page, "portal notifications (ar)");
  await shot(page, "portal-notifications-params-ar");
  await atPhoneWidth("portal-notifications-params-ar");
  await page.getByTestId("language").first().click();
  await page.locator('html[lang="en"]').waitFor(WAIT);
  assert.match(await bank.getByTestId("note-body").innerText(), new RegExp(`account ending ${env("IBAN_LAST4")} on `));
  await accessible(page, "portal notifications (en)");
});
