// The administrators' screens in a real browser (deploy/e2e
// TestConsoleAdminInBrowser starts the system and fills it): the moderation
// queue (journey 2), held payments (journey 3), the commission configuration
// and its preview (journey 4), wallets with an adjustment, and the payout
// statistics' charts. Every screen is checked by axe-core and photographed
// in both languages; no page reloads, everything arrives live.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { accessible, amountOf, bothLanguages, call, counted, env, journeys, launch, open, shot, text, until, WAIT } from "./browser.mjs";

const ADMIN = env("ADMIN_TOKEN");
const home = { path: "/admin/moderation", ready: (page) => page.getByRole("heading", { name: "Moderation queue" }).waitFor(WAIT) };
let browser;
let admin;
before(async () => {
  browser = await launch();
  admin = await open(browser, home.path, ADMIN);
  await home.ready(admin);
  await admin.evaluate(() => (window.__sameDocument = true));
});
after(async () => {
  if (admin) {
    assert.equal(await admin.evaluate(() => window.__sameDocument), true, "the console reloaded");
    assert.deepEqual(admin.problems, []);
  }
  await browser?.close();
});

// Each journey starts on a clean page, even after one before it failed.
const journey = journeys(() => admin, home);
const nav = (name) => admin.getByRole("navigation").getByRole("link", { name, exact: true }).click();

/** Confirms the open dialog and waits for it to close. */
async function confirmDialog(what) {
  const dialog = admin.getByRole("dialog");
  await dialog.waitFor(WAIT);
  await accessible(admin, `${what} dialog`);
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await dialog.waitFor({ state: "hidden", ...WAIT });
}

/** The store owner's portal at path, in a browser context of its own, watched for reloads. */
async function portal(path) {
  const owner = await open(browser, path, env("OWNER_TOKEN"));
  await owner.locator("main h2").first().waitFor(WAIT);
  await owner.evaluate(() => (window.__sameDocument = true));
  return owner;
}

async function closePortal(owner) {
  assert.equal(await owner.evaluate(() => window.__sameDocument), true, "the portal reloaded");
  assert.deepEqual(owner.problems, []);
  await owner.context().close();
}

journey("journey 2: a review flagged through the API appears live; hidden, it leaves the store's reviews in the portal; the decision is in the history", async () => {
  // The owner watches the Bakery's reviews in the portal.
  const owner = await portal("/store/reviews");
  const ownersCopy = owner.locator(`article[data-review="${env("REVIEW_ID")}"]`);
  await ownersCopy.waitFor(WAIT);
  await admin.getByTestId("moderation-empty").waitFor(WAIT);
  await call("mutation", env("FLAGGER_TOKEN"), "stores.reviews.flagReview", {
    reviewId: env("REVIEW_ID"),
    reason: "fake",
    description: "I was never at this store with this person.",
  });
  const card = admin.locator(`article[data-review="${env("REVIEW_ID")}"]`);
  await card.waitFor(WAIT);
  const cardText = await text(card);
  for (const part of ["Bakery", "Stale bread", "The bread was stale", "flagger 0", "Fake", "I was never at this store"]) {
    assert.ok(cardText.includes(part), `the flagged review lacks ${part}: ${cardText}`);
  }
  // Its two photos, loaded from the storage route.
  await counted(card.getByTestId("review-photo"), 2, "the flagged review's photos");
  await admin.waitForFunction(() => [...document.querySelectorAll('[data-testid="review-photo"]')].every((i) => i.complete && i.naturalWidth > 0), null, WAIT);
  await bothLanguages(admin, "moderation", async (lang) => {
    if (lang === "ar") assert.match(await text(card), /مزيّف/);
  });

  // Dismissing asks first; cancelling leaves it.
  await card.getByTestId("dismiss-flag").click();
  await admin.getByRole("dialog").getByText("Dismiss the report of flagger 0?").waitFor(WAIT);
  await admin.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
  await admin.getByRole("dialog").waitFor({ state: "hidden", ...WAIT });

  await card.getByTestId("hide-review").click();
  await admin.getByRole("dialog").locator('textarea[name="adminNotes"]').fill("Reported as fake; the photos do not match.");
  await shot(admin, "moderation-hide-en", { fullPage: false });
  await confirmDialog("hide review");
  await card.waitFor({ state: "detached", ...WAIT });
  await admin.getByTestId("moderation-empty").waitFor(WAIT);
  // It leaves the store's reviews in the owner's portal, without a reload.
  await ownersCopy.waitFor({ state: "detached", ...WAIT });
  await closePortal(owner);

  // The store's public list no longer has it.
  const list = await call("query", ADMIN, "stores.reviews.getStoreReviews", { storeId: env("STORE_ID"), paginationOpts: { numItems: 50, cursor: null } });
  assert.ok(!list.page.some((r) => r._id === env("REVIEW_ID")), "the hidden review is still in the store's reviews");
  // Shown again and hidden again by hand: the decision's row names who did it last (docs/adr/0168).
  for (const visible of [true, false]) {
    await call("mutation", ADMIN, "admins.reviewModeration.setReviewVisibility", { reviewId: env("REVIEW_ID"), adminUserId: "admin-1", visible });
  }

  await admin.getByTestId("moderation-tab").getByText("Decisions", { exact: true }).click();
  const decided = admin.locator('[data-testid="moderation-history"] tr[data-status="resolved"]');
  await decided.waitFor(WAIT);
  const decidedText = await text(decided);
  for (const part of ["Review hidden", "Mariam Al Mansoori", "admin-1", "Bakery", "Reported as fake"]) assert.ok(decidedText.includes(part), `the decision lacks ${part}: ${decidedText}`);
  const moderated = decided.getByTestId("review-moderated");
  assert.equal(await moderated.getAttribute("data-visible"), "false");
  assert.equal(await text(moderated.getByTestId("actor-name")), "Mariam Al Mansoori");
  assert.equal(await text(moderated.getByTestId("actor-id")), "admin-1");
  await bothLanguages(admin, "moderation-history");
  await admin.getByTestId("moderation-tab").getByText("Pending", { exact: true }).click();
});

journey("lists: the inbox, the store's reviews and the decisions, filtered, sorted and paged by the server", async () => {
  const ids = (loc, attr) => loc.evaluateAll((els, a) => els.map((e) => e.getAttribute(a)), attr);
  // The inbox: the review notices only (24 dismissed reports and the journey's), a page of 20, then page 2.
  await nav("Notifications");
  const notes = admin.locator('[data-testid="inbox"] article');
  await notes.first().waitFor(WAIT);
  await admin.getByTestId("kind-filter").click();
  await admin.getByRole("option", { name: "Reviews", exact: true }).click();
  const flagged = admin.locator('[data-testid="inbox"] article[data-type="review_flagged"]');
  await counted(flagged, 20, "a page of review notices");
  assert.equal(await admin.locator('[data-testid="inbox"] article:not([data-type="review_flagged"])').count(), 0, "another kind listed");
  const api = await call("query", ADMIN, "notifications.inbox.list", { kind: "reviews", paginationOpts: { numItems: 20, cursor: null } });
  assert.deepEqual(await ids(notes, "data-notification"), api.page.map((n) => n._id), "the inbox's first page");
  await admin.getByTestId("pager-next").click();
  await admin.locator('[data-testid="pager"][data-page="2"]').waitFor(WAIT);
  const total = (await call("query", ADMIN, "notifications.inbox.count", { kind: "reviews" })).count;
  await counted(flagged, total - 20, "the review notices of page 2");
  assert.equal(await text(admin.getByTestId("pager-where")), `Page 2 of ${Math.ceil(total / 20)}`);
  // Oldest first (page 1 again), and a period: this month has them all.
  await admin.getByTestId("date-order").getByText("Oldest first").click();
  await admin.locator('[data-testid="inbox"][data-order="oldest"]').waitFor(WAIT);
  const oldest = await call("query", ADMIN, "notifications.inbox.list", { kind: "reviews", sort: "oldest", paginationOpts: { numItems: 20, cursor: null } });
  await until(async () => (await ids(notes, "data-notification")).join(), oldest.page.map((n) => n._id).join(), "the inbox oldest first");
  await admin.getByTestId("range-any").click();
  await admin.getByTestId("range").waitFor(WAIT);
  await counted(flagged, 20, "this month's review notices");
  await accessible(admin, "the inbox filtered");

  // The store's reviews in the portal: 4 stars, then a period and oldest first, then page 2.
  const owner = await portal("/store/reviews");
  const cards = owner.locator('[data-testid="reviews"] article[data-review]');
  await counted(cards, 20, "a page of reviews");
  await owner.getByTestId("pager-next").click();
  await owner.locator('[data-testid="pager"][data-page="2"]').waitFor(WAIT);
  const all = await call("query", ADMIN, "stores.reviews.getStoreReviews", { storeId: env("STORE_ID"), paginationOpts: { numItems: 100, cursor: null } });
  await counted(cards, all.page.length - 20, "the reviews of page 2");
  await owner.getByTestId("review-rating").click();
  await owner.getByRole("option", { name: "4 stars", exact: true }).click();
  const fours = all.page.filter((r) => r.rating === 4);
  await counted(cards, fours.length, "the 4-star reviews");
  await owner.getByTestId("reviews-range-any").click();
  await owner.getByTestId("review-sort").click();
  await owner.getByRole("option", { name: "Oldest", exact: true }).click();
  await owner.locator('[data-testid="reviews"][data-sort="oldest"]').waitFor(WAIT);
  await until(async () => (await ids(cards, "data-review")).join(), [...fours].reverse().map((r) => r._id).join(), "the 4-star reviews of this month, oldest first");
  await accessible(owner, "the store's reviews filtered");
  await closePortal(owner);

  // The decisions: the dismissed reports (decided ones only: no pending, no
  // "all"), page 2, and the oldest decision first from the header.
  await nav("Moderation queue");
  await admin.getByTestId("moderation-tab").getByText("Decisions", { exact: true }).click();
  await admin.getByTestId("moderation-status").click();
  await admin.getByRole("option", { name: "Dismissed", exact: true }).waitFor(WAIT);
  assert.equal(await admin.getByRole("option").count(), 2, "the decisions offer a status other than resolved and dismissed");
  await admin.getByRole("option", { name: "Dismissed", exact: true }).click();
  const dismissed = admin.locator('[data-testid="moderation-history"] tr[data-status="dismissed"]');
  await counted(dismissed, 20, "a page of dismissed reports");
  assert.equal(await admin.locator('[data-testid="moderation-history"] tbody tr:not([data-status="dismissed"])').count(), 0, "another status listed");
  assert.equal(await text(admin.getByTestId("pager-where")), "Page 1 of 2");
  await admin.getByTestId("pager-next").click();
  await counted(dismissed, 4, "the dismissed reports of page 2");
  await admin.getByRole("button", { name: "Sort by Decided on" }).click();
  await admin.locator('th[data-sort="decided"][aria-sort="ascending"]').waitFor(WAIT);
  const first = await call("query", ADMIN, "admins.reviewModeration.listFlags", { status: "dismissed", by: "decision", sort: "oldest", paginationOpts: { numItems: 20, cursor: null } });
  await until(async () => (await ids(dismissed, "data-flag")).join(), first.page.map((f) => f._id).join(), "the dismissed reports, oldest decision first, from page 1");
  await accessible(admin, "the decisions filtered");
  await admin.getByTestId("moderation-tab").getByText("Pending", { exact: true }).click();
});

journey("journey 3: a held payment is confirmed, leaves the list and appears in the portal's orders", async () => {
  // The owner watches the Florist's orders: a held order is not the store's yet.
  const owner = await portal("/store/orders");
  await owner.getByRole("combobox", { name: "Store", exact: true }).click();
  await owner.getByRole("option", { name: "Florist", exact: true }).click();
  await owner.getByRole("heading", { name: /Florist/ }).waitFor(WAIT);
  await owner.getByTestId("orders-empty").waitFor(WAIT);
  await nav("Held payments");
  const held = admin.locator(`article[data-order="${env("HELD_ORDER")}"]`);
  await held.waitFor(WAIT);
  await admin.locator(`article[data-order="${env("EMPTY_ORDER")}"]`).waitFor(WAIT);
  const heldText = (await text(held)).toLowerCase();
  for (const part of ["Florist", "The amount paid differs from the total", "AED 209.98", "AED 10.00", "2 × Roses", "Villa 7, Street 3"]) {
    assert.ok(heldText.includes(part.toLowerCase()), `the held order lacks ${part}: ${heldText}`);
  }
  // The store filter asks the server for one store's held orders: none of the Bakery, both of the Florist.
  const filter = admin.getByTestId("held-filter-store");
  await filter.click();
  await admin.getByRole("option", { name: "Bakery", exact: true }).click();
  await admin.getByTestId("held-empty").waitFor(WAIT);
  await counted(admin.locator("article[data-held-row]"), 0, "the Bakery's held orders");
  await filter.click();
  await admin.getByRole("option", { name: "Florist", exact: true }).click();
  await counted(admin.locator("article[data-held-row]"), 2, "the Florist's held orders");
  // Left and opened again: the filter is off (the screens between drawn, not skipped).
  await nav("Wallets");
  await admin.getByRole("heading", { name: "Wallets", level: 2 }).waitFor(WAIT);
  await nav("Held payments");
  await until(() => filter.inputValue(), "", "the store filter after opening the screen again");
  await counted(admin.locator("article[data-held-row]"), 2, "every store's held orders");
  // By order date and oldest first, the server's: last month has none, today both, in the API's order.
  await admin.getByTestId("held-dated").check();
  const heldRange = admin.getByTestId("held-range");
  await heldRange.getByText("Last month", { exact: true }).click();
  await admin.getByTestId("held-empty").waitFor(WAIT);
  await until(() => admin.getByTestId("held-count").getAttribute("data-count"), "0", "last month's held orders counted");
  await heldRange.getByText("Today", { exact: true }).click();
  await counted(admin.locator("article[data-held-row]"), 2, "today's held orders");
  await admin.getByTestId("held-sort").getByText("Oldest first", { exact: true }).click();
  const oldest = await call("query", ADMIN, "admins.orders.listHeldOrders", { sort: "oldest", paginationOpts: { numItems: 50, cursor: null } });
  const heldIds = () => admin.locator("article[data-held-row]").evaluateAll((els) => els.map((e) => e.dataset.order));
  await until(heldIds, oldest.page.map((o) => o._id), "held orders, oldest first");
  await until(() => admin.getByTestId("held-count").getAttribute("data-count"), "2", "today's held orders counted");
  await accessible(admin, "held payments by date, oldest first");
  await admin.getByTestId("held-sort").getByText("Newest first", { exact: true }).click();
  await admin.getByTestId("held-dated").uncheck();
  await bothLanguages(admin, "held-payments");
  await held.getByTestId("held-confirm").click();
  await admin.getByRole("dialog").getByText(`Confirm order ${env("HELD_ORDER")} of Florist?`).waitFor(WAIT);
  await shot(admin, "held-confirm-en", { fullPage: false });
  await confirmDialog("confirm held order");
  await held.waitFor({ state: "detached", ...WAIT });

  // A payment that found no items of the store: nothing to confirm, only to cancel.
  const empty = admin.locator(`article[data-order="${env("EMPTY_ORDER")}"]`);
  assert.match(await text(empty), /Paid, but nothing to order/i);
  await empty.getByTestId("held-nothing").waitFor(WAIT);
  assert.equal(await empty.getByTestId("held-confirm").count(), 0, "an order without items offers confirming");
  await empty.getByTestId("held-cancel").click();
  await confirmDialog("cancel held order");
  await empty.waitFor({ state: "detached", ...WAIT });
  await admin.getByTestId("held-empty").waitFor(WAIT);
  // The store hears of it now: confirmed, in the portal's orders, without a reload.
  await owner.locator(`tr[data-order="${env("HELD_ORDER")}"][data-status="confirmed"]`).waitFor(WAIT);
  // The owner's order page: no held payment's review, no administrator's name (docs/adr/0168).
  await owner.locator(`tr[data-order="${env("HELD_ORDER")}"]`).getByTestId("order-number").click();
  await owner.getByTestId("order-page").waitFor(WAIT);
  assert.equal(await owner.getByTestId("order-held-resolved").count(), 0, "the owner sees the held payment's resolution");
  assert.ok(!(await text(owner.getByTestId("order-page"))).includes("Mariam"), "the owner sees the administrator's name");
  await closePortal(owner);
  // The administrator's order page: why it was held and who resolved it, by name with the id.
  await nav("Orders and refunds");
  const row = admin.locator(`tr[data-order="${env("HELD_ORDER")}"]`);
  await row.waitFor(WAIT);
  await row.getByTestId("order-number").click();
  const resolved = admin.getByTestId("order-held-resolved");
  await resolved.waitFor(WAIT);
  assert.equal(await text(resolved.getByTestId("actor-name")), "Mariam Al Mansoori");
  assert.equal(await text(resolved.getByTestId("actor-id")), "admin-1");
  assert.match(await text(admin.getByTestId("order-held")), /The amount paid differs from the total/);
  await accessible(admin, "a resolved held order's page");
});

/** The preview's figures as shown, by name. */
async function figures(testId) {
  const card = admin.getByTestId(testId);
  const out = {};
  for (const cell of await card.locator("[data-figure]").all()) out[await cell.getAttribute("data-figure")] = await text(cell);
  return out;
}

/** getCommissionPreview's answer, shown as the screen shows figures. */
async function serverPreview(subtotal, deliveryFee) {
  const p = await call("query", ADMIN, "admins.platformAdmin.getCommissionPreview", { storeId: env("STORE_ID"), subtotal, deliveryFee });
  const aed = (n) => `AED ${n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  return {
    total: aed(p.totalAmount),
    rate: `${Math.round(p.commissionRate * 1e6) / 1e4}%`,
    percentage: aed(p.commissionBreakdown.percentageCommission),
    fixed: aed(p.commissionBreakdown.fixedFeeAmount),
    platform: aed(p.platformCommission),
    earnings: aed(p.storeEarnings),
  };
}

journey("journey 4: the commission preview equals getCommissionPreview, before and after the defaults change", async () => {
  await nav("Commission");
  const form = admin.getByTestId("defaults-form");
  await form.waitFor(WAIT);
  // The first store is chosen once the stores are loaded.
  await until(() => admin.getByTestId("preview-store").inputValue(), "Bakery", "the preview's store");
  // An order large enough for the platform's maximum (50.00) to apply.
  await admin.locator('input[name="previewSubtotal"]').fill("2000.45");
  await admin.locator('input[name="previewDeliveryFee"]').fill("7.50");
  const expected = await serverPreview(2000.45, 7.5);
  assert.equal(expected.platform, "AED 50.00"); // 5% of 2007.95 and 2.00 is 102.40: clamped
  await admin.waitForFunction(() => document.querySelector('[data-testid="preview-server"] [data-figure="total"]')?.textContent?.includes("2,007.95"), null, WAIT);
  assert.deepEqual(await figures("preview-draft"), expected, "the preview of the figures as typed");
  assert.deepEqual(await figures("preview-server"), expected, "the server's preview on screen");
  await admin.getByTestId("preview-draft").getByText("the maximum applied").waitFor(WAIT);

  // A maximum typed but not saved: the draft follows, the server's stays.
  await form.locator('input[name="maximumCommission"]').fill("80.00");
  await admin.getByTestId("preview-draft").locator('[data-figure="platform"]').filter({ hasText: "80.00" }).waitFor(WAIT);
  assert.equal((await figures("preview-server")).platform, "AED 50.00");

  // A minimum above the maximum: the server refuses it next to its field.
  await form.locator('input[name="minimumCommission"]').fill("90.00");
  await admin.getByTestId("save-defaults").click();
  await admin.getByRole("dialog").getByText("Change the platform's default commission?").waitFor(WAIT);
  await confirmDialog("save defaults");
  await form.locator('input[name="minimumCommission"][aria-invalid="true"]').waitFor(WAIT);
  assert.match(await text(form), /must not exceed maximumCommission/);
  await shot(admin, "commission-refused-en", { fullPage: false });
  assert.equal((await serverPreview(2000.45, 7.5)).platform, "AED 50.00", "a refused change was applied");

  await form.locator('input[name="minimumCommission"]').fill("1.00");
  await admin.getByTestId("save-defaults").click();
  await confirmDialog("save defaults");
  await form.getByText("Saved.").waitFor(WAIT);
  await admin.getByTestId("preview-server").locator('[data-figure="platform"]').filter({ hasText: "80.00" }).waitFor(WAIT);
  const after = await serverPreview(2000.45, 7.5);
  assert.equal(after.platform, "AED 80.00");
  assert.deepEqual(await figures("preview-draft"), after);
  assert.deepEqual(await figures("preview-server"), after);

  // Another order, under every clamp: the same on screen and from the API.
  await admin.locator('input[name="previewSubtotal"]').fill("123.45");
  const small = await serverPreview(123.45, 7.5);
  await admin.getByTestId("preview-server").locator('[data-figure="total"]').filter({ hasText: "130.95" }).waitFor(WAIT);
  assert.deepEqual(await figures("preview-draft"), small);
  assert.deepEqual(await figures("preview-server"), small);
  // The history reads as changes people follow: labels, AED, by name.
  const change = admin.locator('[data-testid="config-history"] tr[data-operation="updatePlatformConfig"]').first();
  await change.waitFor(WAIT);
  assert.equal(await text(change.locator('[data-field="maximumCommission"]')), "Maximum commission: AED 50.00 → AED 80.00");
  assert.match(await text(change), /Settings changed/);
  assert.match(await text(change.locator("[data-changed-by]")), /^Mariam Al Mansoori/);
  const history = await text(admin.getByTestId("config-history"));
  assert.doesNotMatch(history, /walletSettings\.|categoryCommissions\.|storeTierCommissions\.|0\.05|\{"/, "raw field paths or values in the history");
  assert.match(history, /Category Food: — → 4%/);
  assert.match(await text(admin.getByTestId("signed-in-as")), /Mariam Al Mansoori/);
  // Every catalog category, with its entry or the default rate, and its stores.
  const food = admin.locator('[data-testid="category-commissions"] tr[data-entry="own"]').filter({ hasText: "Food" });
  assert.match(await text(food), /4%/);
  await admin.locator('[data-testid="category-commissions"] td[data-stores]:not([data-stores=""])').first().waitFor(WAIT);
  await bothLanguages(admin, "commission");
});

journey("wallets: an adjustment with a reason, a refusal left in place, the movements and reconciliation live", async () => {
  await nav("Wallets");
  // The overview of every store's wallet; a row opens one.
  await admin.getByRole("link", { name: "Open the wallet of Bakery", exact: true }).click();
  const available = admin.getByTestId("wallet-available");
  await available.waitFor(WAIT);
  const before = amountOf(await text(available));
  await admin.locator('[data-testid="reconcile"][data-consistent="true"]').waitFor(WAIT);

  await admin.getByTestId("adjust-wallet").click();
  const dialog = admin.getByRole("dialog");
  await dialog.getByTestId("adjust-type").click();
  await dialog.getByRole("option", { name: "Deduct from the available balance" }).click();
  await dialog.locator('input[name="amount"]').fill("99999");
  await dialog.locator('input[name="reason"]').fill("More than there is");
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await dialog.locator('[role="alert"], input[aria-invalid="true"]').first().waitFor(WAIT);
  await accessible(admin, "refused adjustment");
  await shot(admin, "wallet-adjust-refused-en", { fullPage: false });
  assert.equal(amountOf(await text(available)), before, "a refused adjustment changed the balance");

  await dialog.getByTestId("adjust-type").click();
  await dialog.getByRole("option", { name: "Add to the available balance" }).click();
  await dialog.locator('input[name="amount"]').fill("25.50");
  await dialog.locator('input[name="reason"]').fill("Goodwill credit for a crushed box");
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await dialog.waitFor({ state: "hidden", ...WAIT });
  await admin.getByTestId("adjusted").waitFor(WAIT);
  await admin.waitForFunction(
    ([want]) => Number(document.querySelector('[data-testid="wallet-available"]')?.textContent?.replace(/[^\d.-]/g, "")) === want,
    [Math.round((before + 25.5) * 100) / 100],
    WAIT,
  );
  const adjusted = admin
    .locator('[data-testid="movements"] tr[data-kind="add_balance"]', { hasText: "Goodwill credit for a crushed box" })
    .filter({ hasText: "Added to available by an administrator" });
  await adjusted.waitFor(WAIT);
  // Who adjusted, by the name their token stated, the id beneath (docs/adr/0168).
  const by = adjusted.getByTestId("movement-adjusted-by");
  assert.equal(await text(by.getByTestId("actor-name")), "Mariam Al Mansoori");
  assert.equal(await text(by.getByTestId("actor-id")), "admin-1");
  await admin.locator('[data-testid="reconcile"][data-consistent="true"]').waitFor(WAIT);
  await bothLanguages(admin, "wallets");
  console.log("ADJUSTED 25.50");
});

journey("payout statistics: figures and charts, the charts fetched after the figures", async () => {
  await nav("Payout statistics");
  await admin.getByTestId("stat-month").waitFor(WAIT);
  assert.match(await text(admin.getByTestId("stat-month")), /AED 700\.00\s*2 payouts/);
  assert.match(await text(admin.getByTestId("stat-pending")), /AED 150\.00\s*1 payouts/);
  await admin.locator('[data-testid="chart-per-day"] .recharts-bar-rectangle').first().waitFor(WAIT);
  await admin.locator('[data-testid="chart-top-stores"] .recharts-bar-rectangle').nth(1).waitFor(WAIT);
  assert.match(await text(admin.getByTestId("chart-top-stores")), /Florist[\s\S]*Bakery|Bakery[\s\S]*Florist/);
  await admin.locator('[data-testid="chart-average-time"] .recharts-surface').waitFor(WAIT);
  await bothLanguages(admin, "payout-stats");
});

journey("catalog: a city and its area, a store created, placed and handed over; a refusal shown in its form", async () => {
  await nav("Catalog");
  await admin.getByText("Cities and areas", { exact: true }).click();
  const newCity = admin.getByTestId("new-city");
  await newCity.locator('input[name="name"]').fill("Sharjah");
  await newCity.locator('input[name="nameArabic"]').fill("الشارقة");
  await newCity.getByRole("button", { name: "Add city" }).click();
  const city = admin.locator('[data-testid="cities"] tr[data-city]', { hasText: "Sharjah" });
  await city.waitFor(WAIT);
  // Emptied on the mutation's answer, which may come after the live list shows the city.
  await until(() => newCity.locator('input[name="name"]').inputValue(), "", "the new city's form, emptied");
  // The same name again: the server's refusal, in the form, and nothing added.
  await newCity.locator('input[name="name"]').fill("sharjah");
  await newCity.locator('input[name="nameArabic"]').fill("الشارقة");
  await newCity.getByRole("button", { name: "Add city" }).click();
  await newCity.getByRole("alert").filter({ hasText: "ALREADY_EXISTS" }).waitFor(WAIT);
  assert.equal(await admin.locator('[data-testid="cities"] tr[data-city]', { hasText: /sharjah/i }).count(), 1);
  await city.getByTestId("show-areas").click();
  const newArea = admin.getByTestId("new-area");
  await newArea.locator('input[name="name"]').fill("Al Majaz");
  await newArea.getByRole("button", { name: "Add area" }).click();
  await admin.locator('[data-testid="areas"] tr', { hasText: "Al Majaz" }).waitFor(WAIT);
  await bothLanguages(admin, "catalog-cities", async (lang) => {
    if (lang === "ar") await admin.getByRole("heading", { name: "مناطق الشارقة" }).waitFor(WAIT);
  });

  await admin.getByText("Stores", { exact: true }).click();
  await admin.getByTestId("create-store").click();
  let dialog = admin.getByRole("dialog");
  await dialog.locator('input[name="name"]').fill("Corniche Cafe");
  await dialog.locator('input[name="ownerUserId"]').fill("owner-2");
  await dialog.locator('input[name="ownerName"]').fill("Khalid Al Suwaidi");
  await dialog.locator('input[name="ownerPhone"]').fill("+971502222222");
  await confirmDialog("create store");
  const store = admin.locator('[data-testid="stores"] tr[data-store]', { hasText: "Corniche Cafe" });
  await store.waitFor(WAIT);
  assert.match(await text(store), /owner-2/);

  await store.getByTestId("edit-store").click();
  dialog = admin.getByRole("dialog");
  await dialog.getByTestId("store-city").click();
  await dialog.getByRole("option", { name: "Sharjah" }).click();
  await dialog.getByTestId("store-area").click();
  await dialog.getByRole("option", { name: "Al Majaz" }).click();
  await dialog.getByTestId("store-tier").click();
  await dialog.getByRole("option", { name: "Premium" }).click();
  await confirmDialog("edit store");
  await store.filter({ hasText: "Sharjah" }).filter({ hasText: "Premium" }).waitFor(WAIT);

  await store.getByTestId("hand-over").click();
  dialog = admin.getByRole("dialog");
  await dialog.getByText("Hand Corniche Cafe over from Khalid Al Suwaidi").waitFor(WAIT);
  await dialog.locator('input[name="ownerUserId"]').fill("owner-3");
  await dialog.locator('input[name="ownerName"]').fill("Mariam Al Ali");
  await dialog.locator('input[name="ownerPhone"]').fill("+971503333333");
  await shot(admin, "catalog-hand-over-en", { fullPage: false });
  await confirmDialog("hand over");
  await store.filter({ hasText: "owner-3" }).waitFor(WAIT);
  console.log(`STORE ${await store.getAttribute("data-store")}`);
  await bothLanguages(admin, "catalog-stores");
});

journey("notifications: the admin inbox, high priority marked, each notice opening its screen", async () => {
  await nav("Notifications");
  const held = admin.locator('[data-testid="inbox"] article[data-type="payment_review"]').first();
  await held.waitFor(WAIT);
  await held.getByTestId("high-priority").waitFor(WAIT);
  await admin.locator('[data-testid="inbox"] article[data-type="review_flagged"]').first().waitFor(WAIT);
  await admin.locator('[data-testid="inbox"] article[data-type="payout_requested"]').first().waitFor(WAIT);
  await bothLanguages(admin, "inbox", async (lang) => {
    if (lang !== "ar") return;
    // Title and body in Arabic, from the notification's type and params (docs/adr/0165).
    // (A held payment: of another amount than its order's, or finding the cart without items.)
    assert.match(await text(held.getByTestId("note-title")), /^(دفع لا يطابق طلبه|دفع بلا منتجات)$/);
    assert.match(await text(held.getByTestId("note-body")), /(أكّد الطلب أو ألغِه|ألغِ الطلب واسترد المبلغ)\.$/);
    assert.equal(await held.locator('[lang="en"]').count(), 0);
  });
  const id = await held.getAttribute("data-notification");
  await held.getByTestId("mark-read").click();
  await admin.locator(`article[data-notification="${id}"][data-read="true"]`).waitFor(WAIT);
  await admin.getByTestId("unread-only").click();
  await admin.locator(`article[data-notification="${id}"]`).waitFor({ state: "detached", ...WAIT });
  // Detached while the filtered list loads too: once loaded, still absent.
  await counted(admin.locator('main [role="status"]'), 0, "the inbox still loading with unread only");
  assert.equal(await admin.locator(`article[data-notification="${id}"]`).count(), 0, "a read notification listed with unread only");
  await admin.getByTestId("unread-only").click();
  await admin.locator(`article[data-notification="${id}"]`).getByRole("link", { name: "Open Held payments" }).click();
  await admin.getByRole("heading", { name: "Held payments" }).waitFor(WAIT);
  console.log(`READ ${id}`);
});
