// The store owner's portal in a real browser (deploy/e2e TestPortalInBrowser
// starts the system and fills it): orders with the moves the server allows,
// reviews with their statistics and replies, products, notifications, and
// journey 5 (Arabic: right to left, Arabic names). Every screen is checked by
// axe-core and photographed in both languages.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { accessible, bothLanguages, call, counted, env, journeys, launch, open, shot, text, WAIT } from "./browser.mjs";

const STORE = env("STORE_ID");
const FIRST = env("FIRST_ORDER");
const SECOND = env("SECOND_ORDER");

const home = { path: "/store/orders", ready: (page) => page.getByRole("heading", { name: /^Orders: Al Noor Bakery/ }).waitFor(WAIT) };
let browser;
let owner;
before(async () => {
  browser = await launch();
  owner = await open(browser, home.path, env("OWNER_TOKEN"));
  await home.ready(owner);
  // No reload from here on: every change arrives live (but for starting over after a failed journey).
  await owner.evaluate(() => (window.__sameDocument = true));
  owner.on("load", () => owner.startingOver || owner.problems.push(`the page loaded again: ${owner.url()}`));
});
after(async () => {
  try {
    if (owner) {
      assert.deepEqual(owner.problems, []);
      assert.equal(await owner.evaluate(() => window.__sameDocument), true, "the portal reloaded");
    }
  } finally {
    await browser?.close();
  }
});

// Each journey starts on a clean page, even after one before it failed.
const journey = journeys(() => owner, home);
const nav = (name) => owner.getByRole("navigation").getByRole("link", { name, exact: true }).click();
const row = (id) => owner.locator(`tr[data-order="${id}"]`);

journey("orders: live, with the server's next statuses as buttons; cancelling asks first", async () => {
  const first = row(FIRST);
  const second = row(SECOND);
  await first.and(owner.locator('[data-status="confirmed"]')).waitFor(WAIT);
  await second.waitFor(WAIT);
  const firstText = await text(first);
  for (const part of ["2 × Sourdough loaf", "AED 25.00", "AED 35.00", "Villa 7, Street 3", "Jumeirah, Dubai", "Paid"]) {
    assert.ok(firstText.includes(part), `the order's row lacks ${part}: ${firstText}`);
  }
  // Confirmed: the next step or cancel, nothing else.
  const moves = async (r) => (await r.locator("[data-testid^=move-]").evaluateAll((els) => els.map((e) => e.dataset.testid))).sort();
  assert.deepEqual(await moves(first), ["move-cancelled", "move-preparing"]);
  await bothLanguages(owner, "portal-orders", async (lang) => {
    if (lang === "ar") assert.match(await first.innerText(), /مؤكد/);
  });

  // Along the delivery path, one step at a time.
  for (const [to, next] of [
    ["preparing", "move-out_for_delivery"],
    ["out_for_delivery", "move-delivered"],
    ["delivered", null],
  ]) {
    await first.getByTestId(`move-${to}`).click();
    await first.and(owner.locator(`[data-status="${to}"]`)).waitFor(WAIT);
    assert.deepEqual(await moves(first), next ? ["move-cancelled", next] : []);
  }
  assert.match(await first.innerText(), /Closed/);

  // A move made elsewhere (an administrator, through the API) arrives by itself.
  await call("mutation", env("ADMIN_TOKEN"), "stores.orders.updateOrderStatus", { orderId: SECOND, status: "preparing" });
  await second.and(owner.locator('[data-status="preparing"]')).waitFor(WAIT);

  // Cancelling asks first; Cancel in the dialog leaves the order as it was.
  await second.getByTestId("move-cancelled").click();
  let dialog = owner.getByRole("dialog");
  await dialog.getByText(/Cancel order #\w+ of AED\s50\.00\?/).waitFor(WAIT);
  await accessible(owner, "cancel order dialog");
  await shot(owner, "portal-order-cancel-en", { fullPage: false });
  await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
  await dialog.waitFor({ state: "hidden", ...WAIT });
  assert.equal(await second.getAttribute("data-status"), "preparing");
  await second.getByTestId("move-cancelled").click();
  dialog = owner.getByRole("dialog");
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await dialog.waitFor({ state: "hidden", ...WAIT });
  await second.and(owner.locator('[data-status="cancelled"]')).waitFor(WAIT);

  // The status filter.
  await owner.getByTestId("order-filter").getByText("Delivered", { exact: true }).click();
  await second.waitFor({ state: "detached", ...WAIT });
  await first.waitFor(WAIT);
  await owner.getByTestId("order-filter").getByText("All", { exact: true }).click();
  await second.waitFor(WAIT);

  // An order whose payment did not match is the platform's: the owner sees it
  // once an administrator confirms it, without a reload.
  const held = row(env("HELD_ORDER"));
  assert.equal(await held.count(), 0, "a held order is in the owner's list");
  await call("mutation", env("ADMIN_TOKEN"), "stores.orders.updateOrderStatus", { orderId: env("HELD_ORDER"), status: "confirmed" });
  await held.and(owner.locator('[data-status="confirmed"]')).waitFor(WAIT);
  assert.deepEqual(await moves(held), ["move-cancelled", "move-preparing"]);
});

journey("reviews: statistics and replies, live; a refused reply stays with its text", async () => {
  await nav("Reviews");
  const stats = owner.getByTestId("review-stats");
  await owner.getByTestId("stat-total").filter({ hasText: "2" }).waitFor(WAIT);
  assert.equal(await text(owner.getByTestId("stat-average")), "4.0");
  const bar = (n) => owner.locator(`[data-testid=histogram] [data-rating="${n}"]`);
  assert.equal(await bar(5).getAttribute("data-count"), "1");
  assert.equal(await bar(3).getAttribute("data-count"), "1");
  assert.equal(await bar(1).getAttribute("data-count"), "0");

  // A new review, written elsewhere, arrives with the statistics.
  const customer = env("CUSTOMER_TOKEN");
  await call("mutation", customer, "customers.profile.upsertMyProfile", { name: "Layla", phone: "+971503333333" });
  await call("mutation", customer, "stores.reviews.addReview", { storeId: STORE, rating: 4, comment: "Lovely date cake." });
  await owner.getByTestId("stat-total").filter({ hasText: "3" }).waitFor(WAIT);
  await owner.getByText("Lovely date cake.").waitFor(WAIT);
  assert.equal(await bar(4).getAttribute("data-count"), "1");
  assert.equal(await text(owner.getByTestId("stat-average")), "4.0");

  // The reply: refused when too long (next to the text, which stays), then published and updated.
  const card = owner.locator("article[data-review]", { hasText: "Good cake, slow delivery." });
  await card.getByTestId("reply").click();
  const box = card.locator('textarea[name="comment"]');
  await box.fill("x".repeat(2001));
  await card.getByRole("button", { name: "Publish reply" }).click();
  await card.locator('textarea[name="comment"][aria-invalid="true"]').waitFor(WAIT);
  assert.equal((await box.inputValue()).length, 2001);
  await accessible(owner, "reviews with a refused reply");
  await box.fill("Thank you, Omar.");
  await card.getByRole("button", { name: "Publish reply" }).click();
  await card.getByTestId("store-response").filter({ hasText: "Thank you, Omar." }).waitFor(WAIT);
  await card.getByTestId("reply").filter({ hasText: "Edit reply" }).click();
  await box.fill("Sorry for the wait, Omar: we have a second driver now.");
  await card.getByRole("button", { name: "Update reply" }).click();
  await card.getByTestId("store-response").filter({ hasText: "we have a second driver now" }).waitFor(WAIT);
  await stats.waitFor(WAIT);
  await bothLanguages(owner, "portal-reviews", async (lang) => {
    if (lang === "ar") await owner.getByText("متوسط التقييم").waitFor(WAIT);
  });
});

journey("products: added, a refused price next to its field, edited, made unavailable", async () => {
  await nav("Products");
  await owner.getByTestId("store-category").filter({ hasText: "Bakeries" }).waitFor(WAIT);
  assert.equal(await text(owner.getByTestId("store-city")), "Dubai");
  assert.equal(await text(owner.getByTestId("store-area")), "Jumeirah");
  await owner.locator("[data-testid=products] tr[data-product]").nth(1).waitFor(WAIT);

  const form = owner.locator("form", { has: owner.getByTestId("create-product") });
  await form.locator('input[name="name"]').fill("Cardamom buns");
  await form.locator('input[name="price"]').fill("0");
  await form.getByTestId("create-product").click();
  await form.locator('input[name="price"][aria-invalid="true"]').waitFor(WAIT); // checked before sending
  await form.locator('input[name="price"]').fill("2000000");
  await form.getByTestId("create-product").click();
  await form.locator('input[name="price"][aria-invalid="true"]').waitFor(WAIT); // the server's refusal, at its field
  assert.equal(await form.locator('input[name="name"]').inputValue(), "Cardamom buns", "the form kept its values");
  await accessible(owner, "products with a refused price");
  await form.locator('input[name="price"]').fill("25");
  await form.getByTestId("create-product").click();
  await owner.getByText("Product added.").waitFor(WAIT);
  const product = owner.locator("[data-testid=products] tr[data-product]", { hasText: "Cardamom buns" });
  await product.waitFor(WAIT);
  const id = await product.getAttribute("data-product");
  assert.match(await text(product), /AED 25\.00/);

  await product.getByTestId("edit-product").click();
  const dialog = owner.getByRole("dialog");
  await dialog.locator('input[name="name"]').fill("Cardamom buns (6)");
  await dialog.locator('input[name="price"]').fill("27.50");
  await accessible(owner, "edit product dialog");
  await dialog.getByRole("button", { name: "Save" }).click();
  await dialog.waitFor({ state: "hidden", ...WAIT });
  const edited = owner.locator(`tr[data-product="${id}"]`);
  await edited.filter({ hasText: "Cardamom buns (6)" }).filter({ hasText: "27.50" }).waitFor(WAIT);

  assert.equal(await edited.getAttribute("data-available"), "true");
  await edited.getByRole("switch").click({ force: true });
  await owner.locator(`tr[data-product="${id}"][data-available="false"]`).waitFor(WAIT);
  await bothLanguages(owner, "portal-products");
  console.log(`PRODUCT ${id}`);
});

journey("notifications: the owner's, marked read in place", async () => {
  await nav("Notifications");
  // Two orders paid as they should, and the held one once confirmed.
  const notes = owner.locator('article[data-type="new_order"]');
  await notes.nth(2).waitFor(WAIT);
  assert.equal(await notes.count(), 3);
  await bothLanguages(owner, "portal-notifications", async (lang) => {
    // In Arabic, title and body from the notification's type and params (docs/adr/0165).
    if (lang === "ar") {
      await notes.first().getByText("طلب جديد", { exact: true }).waitFor(WAIT);
      assert.match(await notes.first().getByTestId("note-body").innerText(), /^طلب جديد بمبلغ/);
      assert.equal(await notes.first().locator('[lang="en"]').count(), 0);
    }
  });
  const unread = owner.locator('article[data-type="new_order"][data-read="false"]');
  await unread.first().getByTestId("mark-read").click();
  await owner.locator('article[data-type="new_order"][data-read="true"]').waitFor(WAIT);
  assert.equal(await unread.count(), 2);
  await owner.getByTestId("unread-only").click({ force: true });
  await owner.locator('article[data-read="true"]').waitFor({ state: "detached", ...WAIT });
  // The list reloads with the filter (for a moment its loader, no rows): the two unread, and no read one.
  await counted(unread, 2, "unread notifications listed with unread only");
  assert.equal(await owner.locator('article[data-read="true"]').count(), 0, "a read notification listed with unread only");
});

journey("journey 5: in Arabic the portal is right to left and shows Arabic names", async () => {
  await nav("Products");
  await owner.getByTestId("language").first().click();
  await owner.locator('html[lang="ar"][dir="rtl"]').waitFor(WAIT);
  // The category and the city by their Arabic names; the layout mirrored.
  await owner.getByTestId("store-category").filter({ hasText: "مخابز" }).waitFor(WAIT);
  assert.equal(await text(owner.getByTestId("store-city")), "دبي");
  const navBox = await owner.locator("nav").first().boundingBox();
  const mainBox = await owner.locator("main").first().boundingBox();
  assert.ok(navBox.x > mainBox.x, `navigation at x=${navBox.x}, content at x=${mainBox.x}: not right to left`);
  assert.equal(await owner.locator("main").evaluate((el) => getComputedStyle(el).direction), "rtl");
  await owner.getByRole("heading", { name: /^المنتجات/ }).waitFor(WAIT);
  // The orders in Arabic: statuses, amounts in AED with two decimals.
  await owner.getByRole("navigation").getByRole("link", { name: "الطلبات", exact: true }).click();
  await row(FIRST).filter({ hasText: "تم التوصيل" }).waitFor(WAIT);
  await row(SECOND).filter({ hasText: "ملغى" }).waitFor(WAIT);
  assert.match(await text(row(FIRST)), /35\.00/);
  await accessible(owner, "orders in Arabic");
  await shot(owner, "journey5-ar");
  await owner.getByTestId("language").first().click();
  await owner.locator('html[lang="en"][dir="ltr"]').waitFor(WAIT);
});
