// Bulk payout decisions, the saved bank account and the movements (issue
// 32) in a real browser (deploy/e2e TestMoneyListsInBrowser starts the
// system and fills it): three requested payouts ticked in the console's
// queue, "Approve selected (3)" behind one confirmation listing them and
// their total, all approved live in the queue and in the owner's portal;
// the owner saves a bank account once, the request form comes filled with
// it and the payout carries that IBAN; an administrator's early release is
// a signed "released early" movement and the newest movement's running
// balance is the wallet's; the queue pages over the server's list (count,
// sort by amount, request dates, page totals); the all-payouts screen and
// the wallets overview
// agree with the API. Every screen and dialog is checked by axe-core, in
// both languages and at 1280 and 390 px.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { accessible, bothLanguages, call, closeAreas, counted, downloadCSV, env, journeys, noSideScroll, openArea, settled, shot, text, until, WAIT } from "./browser.mjs";

const STORE = env("STORE_ID");
const IBAN = env("IBAN");
const PAYOUTS = env("PAYOUT_IDS").split(",");
const ownerToken = env("OWNER_TOKEN");
const adminToken = env("ADMIN_TOKEN");

const ownerHome = { path: "/store/wallet", ready: (page) => page.getByRole("heading", { name: /^Wallet/ }).waitFor(WAIT) };
const adminHome = { path: "/admin/payouts", ready: (page) => page.getByRole("heading", { name: "Payout queue" }).waitFor(WAIT) };
// Each area in a browser of its own (browser.mjs openArea, closeAreas).
let owner;
let admin;
before(async () => {
  owner = await openArea(ownerHome, ownerToken);
  admin = await openArea(adminHome, adminToken);
});
after(() => closeAreas(owner, admin));

const ownerJourney = journeys(() => owner, ownerHome);
const adminJourney = journeys(() => admin, adminHome);
const nav = (page, name) => page.getByRole("navigation").getByRole("link", { name, exact: true }).click();
const fils = (aed) => Math.round(aed * 100);

/** At 390 px nothing scrolls sideways (browser.mjs noSideScroll) and axe finds nothing; then back to 1280. */
async function narrow(page, what) {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await settled(page, `${what} at 390 px`);
    await noSideScroll(page, `${what} at 390 px`);
    await accessible(page, `${what} at 390 px`);
    await shot(page, `${what}-en-390`);
  } finally {
    await page.setViewportSize({ width: 1280, height: 860 });
  }
}

adminJourney("queue: three payouts ticked, approved together behind one confirmation, live in both areas", async () => {
  for (const id of PAYOUTS) await admin.locator(`tr[data-payout="${id}"][data-status="requested"]`).waitFor(WAIT);
  for (const id of PAYOUTS) await admin.locator(`tr[data-payout="${id}"]`).getByTestId("bulk-pick").check();
  const approve = admin.getByTestId("bulk-approve");
  assert.equal(await text(approve), "Approve selected (3)");
  await approve.click();
  const dialog = admin.getByRole("dialog");
  const list = dialog.getByTestId("bulk-list");
  await counted(list.locator("li"), 3, "the payouts listed in the confirmation");
  const owed = await Promise.all(PAYOUTS.map((id) => call("query", adminToken, "admins.payoutOperations.getPayout", { payoutId: id })));
  const total = owed.reduce((s, p) => s + fils(p.requestedAmount), 0);
  assert.equal(fils(Number(await list.getAttribute("data-total"))), total, "the confirmation's total");
  assert.match(await text(dialog), /Approve 3 payouts: AED [\d,.]+ in all/);
  await accessible(admin, "bulk approval dialog");
  await shot(admin, "payouts-bulk-approve-en", { fullPage: false });
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await dialog.waitFor({ state: "hidden", ...WAIT });
  await admin.getByTestId("bulk-done").waitFor(WAIT);
  for (const id of PAYOUTS) {
    await admin.locator(`tr[data-payout="${id}"][data-status="approved"]`).waitFor(WAIT);
    await owner.locator(`[data-testid=payout-list] tr[data-payout="${id}"][data-status="approved"]`).waitFor(WAIT);
  }
  for (const id of PAYOUTS) {
    const p = await call("query", adminToken, "admins.payoutOperations.getPayout", { payoutId: id });
    assert.equal(p.status, "approved", `payout ${id}`);
    assert.equal(p.history.at(-1).action, "approvePayout");
  }
  await bothLanguages(admin, "payouts-queue-bulk");
  await narrow(admin, "payouts-queue-bulk");
});

adminJourney("queue: pages over the server's list, sorted by amount, by request date, with the page's totals", async () => {
  const queue = admin.getByTestId("payout-queue");
  const shownIds = () => queue.locator("tr[data-payout]").evaluateAll((els) => els.map((e) => e.dataset.payout));
  const ask = (args) => call("query", adminToken, "admins.payoutOperations.listPayouts", { status: "open", paginationOpts: { numItems: 20, cursor: null }, ...args });
  // All open payouts, oldest first, 20 a page: "Page 1 of 2" from the server's count.
  const open = await call("query", adminToken, "admins.payoutOperations.countPayouts", { status: "open" });
  assert.equal(open.count, 24, "three approved and twenty-one requested");
  await until(() => admin.getByTestId("payout-count").getAttribute("data-count"), "24", "the queue's count");
  const pager = admin.getByTestId("queue-pager");
  await until(() => pager.getAttribute("data-pages"), "2", "the queue's pages");
  const first = await ask({ sort: "oldest" });
  await until(shownIds, first.page.map((p) => p._id), "page 1, oldest first");
  const totals = admin.getByTestId("queue-page-total");
  assert.equal(await totals.getAttribute("data-rows"), "20");
  const sum = first.page.reduce((s, p) => s + fils(p.requestedAmount), 0);
  assert.equal(fils(Number(await totals.locator("[data-total]").first().getAttribute("data-total"))), sum, "the page's requested total");
  await pager.getByTestId("pager-next").click();
  const second = await ask({ sort: "oldest", paginationOpts: { numItems: 20, cursor: first.continueCursor } });
  assert.equal(second.page.length, 4);
  await until(shownIds, second.page.map((p) => p._id), "page 2");
  assert.equal(await text(pager.getByTestId("pager-where")), "Page 2 of 2");
  await accessible(admin, "queue page 2");
  // Sorted by amount (the server's): back to page 1, the largest first.
  await admin.getByRole("button", { name: "Sort by Amounts" }).click();
  assert.equal(await admin.locator('[data-testid=payout-queue] th[data-sort="amount"]').getAttribute("aria-sort"), "descending");
  const byAmount = await ask({ sort: "amount_desc" });
  await until(shownIds, byAmount.page.map((p) => p._id), "sorted by amount");
  assert.equal(await pager.getAttribute("data-page"), "1");
  // By request date: last month has none; today has them all, by date.
  await admin.getByTestId("queue-dated").check();
  const range = admin.getByTestId("queue-range");
  await range.getByText("Last month", { exact: true }).click();
  await admin.getByTestId("payouts-empty").waitFor(WAIT);
  await until(() => admin.getByTestId("payout-count").getAttribute("data-count"), "0", "last month's count");
  await range.getByText("Today", { exact: true }).click();
  await until(async () => (await shownIds()).length, 20, "today's first page");
  assert.equal(await admin.locator('[data-testid=payout-queue] th[data-sort="amount"]').count(), 0, "an amount sort within a date range");
  await until(() => admin.getByTestId("payout-count").getAttribute("data-count"), "24", "today's count");
  // One status: the requested ones only (the Bakery's three are approved).
  const status = admin.getByTestId("queue-status");
  await status.getByText("Approved", { exact: true }).click();
  await until(async () => (await shownIds()).sort().join(), [...PAYOUTS].sort().join(), "the approved ones");
  await bothLanguages(admin, "payouts-queue-pages");
  await narrow(admin, "payouts-queue-pages");
  await status.getByText("All", { exact: true }).click();
  await admin.getByTestId("queue-dated").uncheck();
});

ownerJourney("wallet: a bank account saved once; the request form comes filled; the payout carries that IBAN", async () => {
  await owner.getByTestId("bank-none").waitFor(WAIT);
  await owner.getByTestId("bank-change").click();
  const dialog = owner.getByRole("dialog");
  await dialog.getByTestId("bank-iban").fill(IBAN.replace(/(.{4})/g, "$1 ").trim());
  await dialog.getByTestId("bank-name").fill("Emirates NBD");
  await dialog.getByTestId("bank-holder").fill("سارة المري");
  await accessible(owner, "bank account dialog");
  await dialog.getByRole("button", { name: "Save account" }).click();
  await dialog.waitFor({ state: "hidden", ...WAIT });
  const account = owner.getByTestId("bank-account");
  await account.waitFor(WAIT);
  assert.equal(await account.getAttribute("data-last4"), IBAN.slice(-4));
  assert.ok(!(await text(account)).includes(IBAN), "the saved IBAN is shown whole");
  const saved = await call("query", ownerToken, "stores.payouts.getBankAccount", { storeId: STORE });
  assert.equal(saved.IBAN, IBAN);

  const form = owner.locator("form", { has: owner.locator('input[name="amount"]') });
  await owner.getByTestId("request-filled").waitFor(WAIT);
  assert.equal(await form.locator('input[name="IBAN"]').inputValue(), IBAN);
  assert.equal(await form.locator('input[name="accountHolderName"]').inputValue(), "سارة المري");
  await form.locator('input[name="amount"]').fill("120");
  await form.getByRole("button", { name: "Request payout" }).click();
  await owner.getByText("Payout requested.").waitFor(WAIT);
  const page = await call("query", ownerToken, "stores.payouts.listPayouts", { storeId: STORE, paginationOpts: { numItems: 1, cursor: null } });
  const newest = page.page[0];
  assert.equal(newest.requestedAmount, 120);
  assert.equal(newest.bankDetails.IBAN, IBAN, "the payout's IBAN is the saved one");
  await owner.locator(`[data-testid=payout-list] tr[data-payout="${newest._id}"]`).waitFor(WAIT);
  // The form is filled again for the next one.
  await until(async () => await form.locator('input[name="IBAN"]').inputValue(), IBAN, "the form filled again");
  await bothLanguages(owner, "wallet-bank-account");
  await narrow(owner, "wallet-bank-account");
});

ownerJourney("movements: the early release is a signed release, the running balance is the wallet's", async () => {
  const early = owner.locator('[data-testid=movements] tr[data-kind="move_pending_to_available"]');
  await early.waitFor(WAIT);
  assert.equal(await early.getAttribute("data-available-change"), "30.00");
  assert.equal(await early.getAttribute("data-pending-change"), "-30.00");
  assert.equal(await text(early.getByTestId("movement-label")), "Released to available early, by an administrator");
  assert.match(await text(early.getByTestId("movement-change")), /\+AED\s?30\.00/);
  assert.equal(await text(early.getByTestId("movement-reason")), "Reason: Released for the journey");
  const w = await call("query", ownerToken, "stores.wallet.getWallet", { storeId: STORE });
  await until(
    async () => fils(Number(await owner.locator("[data-testid=movements] tr[data-seq]").first().getAttribute("data-balance"))),
    fils(w.availableBalance + w.pendingBalance + w.disputedBalance),
    "the newest movement's balance is the wallet's",
  );
  // A payout's movement carries the payout's status now.
  const approved = owner.locator(`[data-testid=movements] tr[data-kind="payout_request"]`).filter({ has: owner.locator('[data-status="approved"]') });
  await counted(approved, PAYOUTS.length, "the approved payouts' movements");
  await bothLanguages(owner, "wallet-movements", async (lang) => {
    if (lang === "ar") assert.equal(await text(early.getByTestId("movement-label")), "تحرير مبكر إلى المتاح من قِبل مسؤول");
  });
  // The server's kind filter, the oldest first by the date header, and page 2.
  const rows = owner.locator("[data-testid=movements] tr[data-seq]");
  const kinds = () => rows.evaluateAll((els) => [...new Set(els.map((e) => e.dataset.kind))].join());
  await owner.getByTestId("movements-kind").click();
  await owner.getByRole("option", { name: "Added by an administrator", exact: true }).click();
  await until(kinds, "add_balance", "only the administrators' additions");
  await counted(rows, 20, "a page of additions");
  await owner.getByTestId("movements").getByRole("button", { name: "Sort by Date" }).click();
  assert.equal(await owner.locator('[data-testid=movements] th[data-sort="date"]').getAttribute("aria-sort"), "ascending");
  await until(async () => await rows.first().getAttribute("data-amount"), "1.00", "the oldest addition first");
  assert.equal(await owner.getByTestId("movements-page-total").locator("[data-total]").getAttribute("data-total"), "20.00");
  await owner.getByTestId("movements-pager").getByTestId("pager-next").click();
  await counted(rows, 1, "page 2 of the additions");
  assert.equal(await rows.first().getAttribute("data-amount"), "1000.00");
  assert.equal(await owner.getByTestId("movements-pager").getAttribute("data-page"), "2");
  await accessible(owner, "movements, page 2");
  await narrow(owner, "wallet-movements-filtered");
  await owner.getByTestId("movements-pager").getByTestId("pager-page-1").click();
  await counted(rows, 20, "page 1 again");

  // The owner's payouts: the server's status filter, by amount, the page's total.
  const payouts = owner.locator("[data-testid=payout-list] tr[data-payout]");
  await owner.getByTestId("payouts-status").click();
  await owner.getByRole("option", { name: "Approved", exact: true }).click();
  await counted(payouts, PAYOUTS.length, "the approved payouts");
  await owner.getByTestId("payout-list").getByRole("button", { name: "Sort by Requested", exact: true }).click();
  await until(async () => (await payouts.evaluateAll((els) => els.map((e) => e.dataset.amount))).join(), "250.00,200.00,150.00", "largest first");
  assert.equal(await owner.getByTestId("payouts-page-total").locator("[data-total]").first().getAttribute("data-total"), "600.00");
});

adminJourney("all payouts and the wallets overview agree with the API", async () => {
  await nav(admin, "All payouts");
  await admin.getByRole("heading", { name: "All payouts" }).waitFor(WAIT);
  const api = await call("query", adminToken, "admins.payoutOperations.listPayouts", { paginationOpts: { numItems: 20, cursor: null } });
  await counted(admin.locator("[data-testid=all-payouts] tr[data-payout]"), api.page.length, "every payout listed");
  const ids = await admin.locator("[data-testid=all-payouts] tr[data-payout]").evaluateAll((els) => els.map((e) => e.dataset.payout));
  assert.deepEqual(ids, api.page.map((p) => p._id), "the list's order (newest first)");
  await admin.getByRole("button", { name: "Sort by Amount" }).click();
  const byAmount = await call("query", adminToken, "admins.payoutOperations.listPayouts", { sort: "amount_desc", paginationOpts: { numItems: 20, cursor: null } });
  await until(
    async () => (await admin.locator("[data-testid=all-payouts] tr[data-payout]").evaluateAll((els) => els.map((e) => e.dataset.payout))).join(),
    byAmount.page.map((p) => p._id).join(),
    "sorted by amount",
  );
  assert.equal(await admin.locator('th[data-sort="amount"]').getAttribute("aria-sort"), "descending");
  await bothLanguages(admin, "all-payouts");
  await narrow(admin, "all-payouts");

  await nav(admin, "Wallets");
  const totals = admin.getByTestId("wallet-totals");
  await totals.waitFor(WAIT);
  const t = await call("query", adminToken, "admins.payoutOperations.getWalletTotals", {});
  assert.equal(Number(await totals.getAttribute("data-available")), t.availableBalance);
  assert.equal(Number(await totals.getAttribute("data-wallets")), t.wallets);
  await admin.locator(`[data-testid=wallets-overview] tr[data-store="${STORE}"]`).waitFor(WAIT);
  // Sorted by pending (the server's), the page's totals, and only those in debt (none).
  await admin.getByTestId("sort-pending").click();
  assert.equal(await admin.locator("[data-testid=wallets-overview] th", { has: admin.getByTestId("sort-pending") }).getAttribute("aria-sort"), "descending");
  const shown = await admin.locator("[data-testid=wallets-overview] tr[data-store]").count();
  assert.equal(await admin.getByTestId("wallets-page-total").getAttribute("data-rows"), String(shown));
  await admin.getByTestId("in-debt").check();
  await admin.getByTestId("wallets-empty").waitFor(WAIT);
  await admin.getByTestId("in-debt").uncheck();
  await admin.locator(`[data-testid=wallets-overview] tr[data-store="${STORE}"]`).waitFor(WAIT);
  await bothLanguages(admin, "wallets-overview");
  await narrow(admin, "wallets-overview");
  await admin.getByRole("link", { name: "Open the wallet of Bakery", exact: true }).click();
  await admin.locator('[data-testid=movements] tr[data-kind="move_pending_to_available"]').waitFor(WAIT);
  await accessible(admin, "one wallet");
  await admin.getByTestId("wallets-back").click();
  await totals.waitFor(WAIT);
  await nav(admin, "Payout queue");
});

adminJourney("the payouts and wallets CSVs, downloaded through their buttons, hold the API's rows", async () => {
  const toFils = (cell) => fils(Number(cell));
  // All payouts: the CSV needs a period (by request date, this month).
  await nav(admin, "All payouts");
  await admin.getByRole("heading", { name: "All payouts" }).waitFor(WAIT);
  await admin.getByTestId("filter-dated").check();
  const payoutsButton = admin.getByTestId("csv-payouts");
  await until(() => payoutsButton.isEnabled(), true, "the payouts CSV button enabled with a period");
  const payouts = await downloadCSV(admin, payoutsButton);
  const [, fromDay, toDay] = payouts.name.match(/^payouts-(\d{4}-\d{2}-\d{2})-(\d{4}-\d{2}-\d{2})\.csv$/) ?? [];
  assert.ok(fromDay && toDay, `the payouts CSV's name: ${payouts.name}`);
  const period = { from: Date.parse(`${fromDay}T00:00:00.000+04:00`), to: Date.parse(`${toDay}T23:59:59.999+04:00`) };
  const listed = await call("query", adminToken, "admins.payoutOperations.listPayouts", { ...period, paginationOpts: { numItems: 100, cursor: null } });
  assert.equal(listed.isDone, true, "every payout in one page of the API");
  const [head, ...rows] = payouts.rows;
  assert.deepEqual(head.slice(0, 8), ["payoutId", "requestDate", "storeId", "storeName", "status", "requestedAmount", "processingFee", "netAmount"]);
  const col = (name) => head.indexOf(name);
  assert.deepEqual(
    rows.map((r) => r[col("payoutId")]),
    listed.page.map((p) => p._id),
    "the CSV's payouts are the API's, newest first",
  );
  const bakery = rows.filter((r) => r[col("storeId")] === STORE).length;
  assert.ok(bakery === PAYOUTS.length + 1, `the Bakery's three approved and the one requested in the browser: ${bakery} rows`);
  for (const [i, p] of listed.page.entries()) {
    const r = rows[i];
    const what = `the payouts CSV's row of ${p._id}`;
    assert.equal(r[col("storeId")], p.storeId, what);
    assert.equal(r[col("storeName")], p.storeName, what);
    assert.equal(r[col("status")], p.status, what);
    assert.equal(toFils(r[col("requestedAmount")]), fils(p.requestedAmount), what);
    assert.equal(Number(r[col("requestDate")]), p.requestDate, what);
    assert.equal(r[col("IBAN")], p.bankDetails.IBAN, what);
    assert.equal(r[col("accountHolderName")], p.bankDetails.accountHolderName, what);
  }
  assert.equal(rows[0][col("IBAN")], IBAN, "the newest payout carries the saved IBAN");
  assert.equal(rows[0][col("accountHolderName")], "سارة المري", "the holder's Arabic name, whole");

  // The wallets overview: every wallet, the API's order, summing to the totals.
  await nav(admin, "Wallets");
  await admin.getByTestId("wallet-totals").waitFor(WAIT);
  const wallets = await downloadCSV(admin, admin.getByTestId("csv-wallets"));
  assert.equal(wallets.name, "wallets.csv");
  const [whead, ...wrows] = wallets.rows;
  assert.deepEqual(whead.slice(0, 8), ["walletId", "storeId", "storeName", "ownerUserId", "availableBalance", "pendingBalance", "disputedBalance", "debt"]);
  const wcol = (name) => whead.indexOf(name);
  const api = await call("query", adminToken, "admins.payoutOperations.listWallets", { sort: "available_desc", paginationOpts: { numItems: 100, cursor: null } });
  assert.equal(api.isDone, true, "every wallet in one page of the API");
  // The CSV lists wallets in id order (stable while balances move: docs/adr/0175).
  const byId = [...api.page].sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
  assert.deepEqual(
    wrows.map((r) => r[wcol("walletId")]),
    byId.map((w) => w._id),
    "the CSV's wallets are the API's, in id order",
  );
  for (const [i, w] of byId.entries()) {
    const r = wrows[i];
    const what = `the wallets CSV's row of ${w._id}`;
    assert.equal(r[wcol("storeId")], w.storeId, what);
    assert.equal(r[wcol("storeName")], w.storeName, what);
    for (const k of ["availableBalance", "pendingBalance", "disputedBalance", "debt"]) assert.equal(toFils(r[wcol(k)]), fils(w[k]), `${what}: ${k}`);
  }
  assert.ok(wrows.some((r) => r[wcol("storeId")] === STORE), "the Bakery's wallet in the CSV");
  const t = await call("query", adminToken, "admins.payoutOperations.getWalletTotals", {});
  const sum = (k) => wrows.reduce((s, r) => s + toFils(r[wcol(k)]), 0);
  assert.deepEqual(
    { wallets: wrows.length, available: sum("availableBalance"), pending: sum("pendingBalance"), disputed: sum("disputedBalance") },
    { wallets: t.wallets, available: fils(t.availableBalance), pending: fils(t.pendingBalance), disputed: fils(t.disputedBalance) },
    "the wallets CSV sums to the totals",
  );
  await nav(admin, "Payout queue");
});
