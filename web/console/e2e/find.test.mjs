// Finding an order and its page (issue 32) in a real browser (deploy/e2e
// TestFindInBrowser starts the system and fills it): an administrator types
// an order's number in the header's search, gets that one order and opens
// its page (customer, address by name, items, commission, timeline with who
// moved it); the owner reaches the same page from the portal's orders; the
// administrator's orders CSV of today downloads and holds exactly the rows
// the API lists for the same period; the search finds a payout by its
// transaction reference and its number, and a review by words of its
// comment, and the payouts screen names the administrator who moved it
// (the order's timeline names the owner who moved it). Every page is checked by axe-core, at
// 1280 and 390 px, in both languages where cheap.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { accessible, bothLanguages, call, closeAreas, downloadCSV, env, journeys, openArea, shot, text, WAIT } from "./browser.mjs";

const ORDER = env("ORDER_ID");
const NUMBER = env("ORDER_NUMBER");
const adminHome = { path: "/admin/orders", ready: (page) => page.getByRole("heading", { name: "Orders and refunds" }).waitFor(WAIT) };
const ownerHome = { path: "/store/orders", ready: (page) => page.getByRole("heading", { name: /^Orders: Bakery/ }).waitFor(WAIT) };

// Each area in a browser of its own (browser.mjs openArea, closeAreas).
let admin;
let owner;
before(async () => {
  admin = await openArea(adminHome, env("ADMIN_TOKEN"));
  owner = await openArea(ownerHome, env("OWNER_TOKEN"));
});
after(() => closeAreas(admin, owner));

const adminJourney = journeys(() => admin, adminHome);
const ownerJourney = journeys(() => owner, ownerHome);

/** No sideways scroll of the document at the page's width. */
async function noSideScroll(page, what) {
  const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  assert.ok(scroll <= client + 1, `${what}: the page scrolls sideways (${scroll} > ${client})`);
}

/** fn at 390 px wide (a phone), then back at 1280. */
async function atPhoneWidth(page, fn) {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await fn();
  } finally {
    await page.setViewportSize({ width: 1280, height: 860 });
  }
}

/** What the order page must show, in English. */
async function checkOrderPage(page, who) {
  const p = page.getByTestId("order-page");
  await p.and(page.locator(`[data-order="${ORDER}"]`)).waitFor(WAIT);
  await page.getByRole("heading", { name: `Order #${NUMBER}` }).waitFor(WAIT);
  assert.match(await text(page.getByTestId("order-customer-name")), /Noor Hassan/, `${who}: the customer`);
  assert.match(await text(page.getByTestId("order-customer")), /\+971501111111/, `${who}: the phone`);
  const address = await text(page.getByTestId("order-address"));
  assert.match(address, /Villa 7, Street 3/, `${who}: the address`);
  assert.match(address, /Jumeirah, Dubai/, `${who}: the places by name`);
  assert.doesNotMatch(address, /cty_|ara_/, `${who}: no ids in the address`);
  assert.match(await text(page.getByTestId("order-items")), /2 × Bread/, `${who}: the items`);
  const commission = await text(page.getByTestId("order-commission"));
  assert.ok(commission.includes(env("ORDER_COMMISSION")), `${who}: the commission ${env("ORDER_COMMISSION")} in ${commission}`);
  const timeline = page.getByTestId("order-timeline");
  await timeline.locator('[data-status="confirmed"][data-role="system"]').waitFor(WAIT);
  await timeline.locator('[data-status="preparing"][data-role="store"]').waitFor(WAIT);
  assert.match(await text(timeline), /Preparing[\s\S]*by the store/, `${who}: who moved it`);
  // By name (their token's), isolated, the id as secondary text.
  const mover = timeline.locator('[data-status="preparing"]').getByTestId("actor");
  assert.equal(await text(mover.getByTestId("actor-name")), "Sara Al Marri", `${who}: the mover by name`);
  assert.equal(await mover.locator("bdi").count(), 1, `${who}: the name isolated`);
  assert.equal(await text(mover.getByTestId("actor-id")), "owner-1", `${who}: the mover's id`);
  // The notifications sent about it: at least the owner's new-order notice.
  await page.getByTestId("order-notes").locator("tbody tr").first().waitFor(WAIT);
}

adminJourney("the header's search finds an order by its number and opens its page", async () => {
  const box = admin.getByTestId("header-search");
  await box.fill(`#${NUMBER.toLowerCase()}`);
  await box.press("Enter");
  await admin.waitForURL(/\/admin\/search\?q=/, WAIT);
  const results = admin.getByTestId("search-orders").getByTestId("search-result");
  await results.first().waitFor(WAIT);
  assert.equal(await results.count(), 1, "one order has this number");
  assert.equal(await results.first().getAttribute("data-order"), ORDER);
  await accessible(admin, "the search's results");
  await shot(admin, "find-search-en");
  await results.first().getByTestId("order-number").click();
  await admin.waitForURL(new RegExp(`/admin/orders/${ORDER}$`), WAIT);
  await checkOrderPage(admin, "the administrator");
  await admin.getByTestId("order-payment").waitFor(WAIT);
  await bothLanguages(admin, "find-order-page", async (lang) => {
    if (lang === "ar") {
      // The city by its Arabic name; the customer's name and the address isolated.
      assert.match(await text(admin.getByTestId("order-address")), /دبي/);
      assert.equal(await admin.getByTestId("order-customer-name").locator("bdi").count(), 1);
    }
  });
  await atPhoneWidth(admin, async () => {
    await checkOrderPage(admin, "the administrator at 390 px");
    await noSideScroll(admin, "the order page at 390 px");
    await accessible(admin, "the order page at 390 px");
    await shot(admin, "find-order-page-en-390");
  });
  await admin.getByTestId("order-back").click();
  await adminHome.ready(admin);
});

adminJourney("a text search finds customers and stores; the search screen works at 390 px", async () => {
  const box = admin.getByTestId("header-search");
  await box.fill("noor");
  await box.press("Enter");
  await admin.waitForURL(/\/admin\/search\?q=noor$/, WAIT);
  await admin.getByTestId("search-customers").getByText("Noor Hassan").waitFor(WAIT);
  await admin.getByTestId("search-stores").getByTestId("search-none").waitFor(WAIT);
  await accessible(admin, "a text search");
  await atPhoneWidth(admin, async () => {
    await admin.getByTestId("search-input").fill("bak");
    await admin.getByTestId("search-submit").click();
    await admin.getByTestId("search-stores").getByText("Bakery").waitFor(WAIT);
    await noSideScroll(admin, "the search at 390 px");
    await accessible(admin, "the search at 390 px");
    await shot(admin, "find-search-en-390");
  });
  await admin.getByRole("navigation").getByRole("link", { name: "Orders and refunds", exact: true }).click();
  await adminHome.ready(admin);
});

const PAYOUT = env("PAYOUT_ID");
const REVIEW = env("REVIEW_ID");

adminJourney("the search finds a payout and a review; the payouts screen names who moved the payout", async () => {
  const box = admin.getByTestId("header-search");
  const search = async (q) => {
    await box.fill(q);
    await box.press("Enter");
    await admin.waitForURL(/\/admin\/search\?q=/, WAIT);
    await admin.getByTestId("search-for").locator("bdi", { hasText: q }).waitFor(WAIT);
  };
  await search("enbd-555");
  const payouts = admin.getByTestId("search-payouts").getByTestId("search-result");
  await payouts.first().waitFor(WAIT);
  assert.equal(await payouts.count(), 1, "one payout has this reference");
  assert.equal(await payouts.first().getAttribute("data-payout"), PAYOUT);
  assert.equal(await payouts.first().getAttribute("data-matched"), "reference");
  const short = `#${PAYOUT.slice(-6).toUpperCase()}`;
  assert.equal(await text(payouts.first().getByTestId("search-payout-link")), short, "the payout's number");
  await search(short);
  await admin.getByTestId("search-payouts").locator(`[data-payout="${PAYOUT}"][data-matched="id"]`).waitFor(WAIT);
  await search("sourdough WARM");
  const reviews = admin.getByTestId("search-reviews").getByTestId("search-result");
  await reviews.first().waitFor(WAIT);
  assert.equal(await reviews.count(), 1, "one review has these words");
  assert.equal(await reviews.first().getAttribute("data-review"), REVIEW);
  assert.equal(await reviews.first().getByTestId("search-review-text").getAttribute("dir"), "auto", "the comment isolated");
  await accessible(admin, "the search's payouts and reviews");
  await shot(admin, "find-search-payouts-reviews-en");
  // The payouts screen, filtered to the payout's store: who moved it, by name.
  await search("enbd-555");
  await payouts.first().getByTestId("search-payout-link").click();
  await admin.waitForURL(/\/admin\/all-payouts\?storeId=/, WAIT);
  const row = admin.locator(`tr[data-payout="${PAYOUT}"]`);
  await row.waitFor(WAIT);
  const by = row.getByTestId("payout-decided-by");
  assert.equal(await text(by.getByTestId("actor-name")), "Mariam Al Mansoori", "the administrator by name");
  assert.equal(await text(by.getByTestId("actor-id")), "admin-1", "the administrator's id");
  assert.equal(await text(row.getByTestId("payout-number")), short);
  await accessible(admin, "the payouts screen of a store");
  await admin.getByRole("navigation").getByRole("link", { name: "Orders and refunds", exact: true }).click();
  await adminHome.ready(admin);
});

ownerJourney("the owner opens the same order's page from the portal's orders", async () => {
  const row = owner.locator(`tr[data-order="${ORDER}"]`);
  await row.waitFor(WAIT);
  assert.match(await text(row), /Noor Hassan/, "the row names the customer");
  assert.match(await text(row), /Jumeirah, Dubai/, "the row names the places");
  await row.getByTestId("order-number").click();
  await owner.waitForURL(new RegExp(`/store/orders/${ORDER}$`), WAIT);
  await checkOrderPage(owner, "the owner");
  // The owner's moves on the page: the next step and cancelling.
  await owner.getByTestId("order-actions").getByTestId("move-out_for_delivery").waitFor(WAIT);
  await accessible(owner, "the owner's order page");
  await shot(owner, "find-order-page-store-en");
  await owner.getByTestId("order-back").click();
  await ownerHome.ready(owner);
});

adminJourney("today's orders as CSV: the API's rows for the same period", async () => {
  await admin.getByTestId("period").getByText("Today", { exact: true }).click();
  const { name, rows } = await downloadCSV(admin, admin.getByTestId("orders-csv"));
  assert.match(name, /^orders-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
  assert.deepEqual(rows[0], ["number", "id", "date", "store", "customer", "city", "area", "items", "subtotal", "delivery_fee", "total", "commission", "earnings", "payment", "status", "refunded"]);
  const day = new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Dubai", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());
  const from = Date.parse(`${day}T00:00:00.000+04:00`);
  const to = Date.parse(`${day}T23:59:59.999+04:00`);
  const api = await call("query", env("ADMIN_TOKEN"), "admins.orders.listOrders", { from, to, paginationOpts: { numItems: 100, cursor: null } });
  assert.deepEqual(
    rows.slice(1).map((r) => r[1]),
    api.page.map((o) => o._id),
    "the CSV's orders are the API's, newest first",
  );
  assert.ok(rows.slice(1).some((r) => r[1] === ORDER && r[0] === NUMBER && r[4] === "Noor Hassan" && r[5] === "Dubai" && r[6] === "Jumeirah"), "the order's row");
  for (const id of env("OTHER_ORDERS").split(",")) assert.ok(rows.some((r) => r[1] === id), `${id} in the CSV`);
  await admin.getByTestId("period").getByText("This month", { exact: true }).click();
});
