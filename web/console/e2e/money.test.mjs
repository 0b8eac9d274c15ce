// Refunds, debt, disputes and the statement (issue 31) in a real browser
// (deploy/e2e TestMoneyInBrowser starts the system with its processor
// simulator and fills it): the owner refunds by items in the portal and an
// administrator refunds all that is left in the console, each requested
// until the simulator's held confirmation is released, then refunded; a
// refusal in the user's words; the wallet in debt with its disputed
// balance; the disputes with their deadlines in both areas, closed live;
// the statement with its running balance equal to the wallet, and its CSV.
// Every screen and dialog is checked by axe-core; screens are photographed
// in both languages.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before } from "node:test";
import { accessible, amountOf, bothLanguages, call, closeAreas, counted, env, journeys, openArea, shot, text, until, WAIT } from "./browser.mjs";

const STORE = env("STORE_ID");
const PORTAL = env("PORTAL_ORDER");
const CONSOLE = env("CONSOLE_ORDER");
const DISPUTED = env("DISPUTED_ORDER");
const DISPUTE = env("DISPUTE_ID");

const ownerHome = { path: "/store/orders", ready: (page) => page.getByRole("heading", { name: /^Orders: Bakery/ }).waitFor(WAIT) };
const adminHome = { path: "/admin/orders", ready: (page) => page.getByRole("heading", { name: "Orders and refunds" }).waitFor(WAIT) };
// Each area in a browser of its own (browser.mjs openArea, closeAreas).
let owner;
let admin;
before(async () => {
  owner = await openArea(ownerHome, env("OWNER_TOKEN"));
  admin = await openArea(adminHome, env("ADMIN_TOKEN"));
});
after(() => closeAreas(owner, admin));

const ownerJourney = journeys(() => owner, ownerHome);
const adminJourney = journeys(() => admin, adminHome);
const nav = (page, name) => page.getByRole("navigation").getByRole("link", { name, exact: true }).click();
const row = (page, id) => page.locator(`tr[data-order="${id}"]`);

/** A call to the processor simulator's own API, with its secret key. */
async function simulator(method, path, form) {
  const r = await fetch(env("PROCESSOR_URL") + path, {
    method,
    headers: { Authorization: `Bearer ${env("PROCESSOR_KEY")}`, ...(form ? { "Content-Type": "application/x-www-form-urlencoded" } : {}) },
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  const body = await r.json();
  assert.equal(r.status, 200, `${method} ${path}: ${JSON.stringify(body)}`);
  return body;
}

/** Sends the refund confirmation the simulator holds for an intent (TestMoneyInBrowser put a hold on it). */
async function releaseRefund(intent) {
  let held = [];
  await until(
    async () => {
      held = (await simulator("GET", `/simulator/deliveries?objectId=${intent}&status=held`)).data;
      return held.length;
    },
    1,
    `the refund confirmation of ${intent} held at the simulator`,
  );
  await simulator("POST", `/simulator/deliveries/${held[0].id}/release`);
}

const wallet = async () => await call("query", env("OWNER_TOKEN"), "stores.wallet.getWallet", { storeId: STORE });
const fils = (aed) => Math.round(aed * 100);

ownerJourney("portal: a loaf refunded by items, requested, then refunded when the processor confirms", async () => {
  const r = row(owner, PORTAL);
  await r.waitFor(WAIT);
  assert.equal(await r.getAttribute("data-refund-status"), "none");
  await r.getByTestId("refund").click();
  const dialog = owner.getByRole("dialog");
  await dialog.getByTestId("refund-figures").filter({ hasText: /left to refund\s+\S*AED\s87\.05/ }).waitFor(WAIT);
  // Items, none chosen: refused before sending, with a reason too.
  await dialog.getByTestId("refund-mode").getByText("Items", { exact: true }).click();
  await dialog.getByRole("button", { name: "Request refund" }).click();
  await dialog.getByText("Choose a quantity of at least one item.").waitFor(WAIT);
  await dialog.locator('input[name="reason"][aria-invalid="true"]').waitFor(WAIT);
  await dialog.getByLabel(/^Bread: quantity to refund/).fill("1");
  await dialog.locator('input[name="reason"]').fill("One loaf arrived burnt");
  await accessible(owner, "the portal's refund dialog");
  await shot(owner, "portal-refund-en", { fullPage: false });
  await dialog.getByRole("button", { name: "Request refund" }).click();
  await dialog.waitFor({ state: "hidden", ...WAIT });
  // Requested: the processor has not confirmed it yet (its confirmation is held).
  await r.locator('[data-refund-item-status="requested"]').waitFor(WAIT);
  await r.getByTestId("refund-requested").filter({ hasText: "AED 12.35" }).waitFor(WAIT);
  assert.equal(await r.getAttribute("data-refund-status"), "none");
  await releaseRefund(env("PORTAL_INTENT"));
  await owner.locator(`tr[data-order="${PORTAL}"][data-refund-status="partially_refunded"]`).waitFor(WAIT);
  await r.locator('[data-refund-item-status="succeeded"]').waitFor(WAIT);
  await counted(r.getByTestId("refund-requested"), 0, "the note of the refund requested, once it is refunded");
  const shown = await text(r);
  assert.match(shown, /Partly refunded/i);
  assert.match(shown, /Refunded \S*AED 12\.35/);
  assert.match(shown, /Left to refund: \S*AED 74\.70/);
  await accessible(owner, "the orders with a refund");
});

ownerJourney("portal: a refund the server refuses says why (the payment is disputed)", async () => {
  const r = row(owner, DISPUTED);
  await r.getByTestId("refund").click();
  const dialog = owner.getByRole("dialog");
  await dialog.locator('input[name="reason"]').fill("The customer asked");
  await dialog.getByRole("button", { name: "Request refund" }).click();
  await dialog.getByRole("alert").filter({ hasText: "The customer disputed this payment: no refund until the dispute is closed." }).waitFor(WAIT);
  await accessible(owner, "a refused refund");
  await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
  await dialog.waitFor({ state: "hidden", ...WAIT });
  assert.equal(await r.locator("[data-refund]").count(), 0, "the refused refund is listed");
});

ownerJourney("portal: the wallet in debt, with its disputed balance; payouts paused", async () => {
  await nav(owner, "Wallet and payouts");
  const debt = owner.getByTestId("wallet-debt");
  await debt.waitFor(WAIT);
  const w = await wallet();
  assert.ok(w.availableBalance < 0 && w.disputedBalance > 0, `the wallet: ${JSON.stringify(w)}`);
  await until(async () => amountOf(await text(owner.getByTestId("wallet-available"))), w.availableBalance, "available as the API says");
  assert.equal(amountOf(await text(owner.getByTestId("wallet-disputed"))), w.disputedBalance);
  assert.match(await text(debt), new RegExp(`You owe \\S*AED ${(-w.availableBalance).toFixed(2)}\\S*: .*Your next earnings repay it, and payouts are paused`));
  await owner.getByTestId("payouts-paused").waitFor(WAIT);
  await owner.getByTestId("wallet-disputed-note").waitFor(WAIT);
  await bothLanguages(owner, "portal-wallet-debt", async (lang) => {
    // In Arabic the amount keeps its digits left to right, isolated in the
    // sentence by t() (the raw text: text() drops the isolation marks).
    if (lang === "ar") assert.match(await debt.innerText(), new RegExp(`عليك \u2068.*${(-w.availableBalance).toFixed(2)}.*\u2069`));
  });
});

ownerJourney("portal: the store's dispute, open, with its deadline", async () => {
  await nav(owner, "Disputes");
  const d = owner.locator(`[data-testid=disputes-open] tr[data-dispute="${DISPUTE}"]`);
  await d.waitFor(WAIT);
  const shown = await text(d);
  // The processor's reason in the owner's words, its code kept as the title.
  assert.match(shown, /Order not received/);
  assert.doesNotMatch(shown, /product_not_received/);
  assert.equal(await d.locator("[data-reason]").getAttribute("title"), "product_not_received");
  assert.match(shown, /AED 87\.05/);
  assert.match(shown, /\d+ days left/);
  const due = Number(await d.getAttribute("data-due"));
  assert.ok(due > Date.now(), `due ${due}`);
  await owner.getByTestId("disputes-closed-empty").waitFor(WAIT);
  await bothLanguages(owner, "portal-disputes", async (lang) => {
    if (lang === "ar") assert.match(await text(d.locator("[data-reason]")), /لم يصل الطلب/);
  });
});

adminJourney("console: an order refunded in full, requested, then refunded; found by its payment intent", async () => {
  await admin.getByTestId("orders-store").click();
  await admin.getByRole("option", { name: "Bakery", exact: true }).click();
  const r = admin.locator(`[data-testid=orders] tr[data-order="${CONSOLE}"]`);
  await r.waitFor(WAIT);
  // The owner's refund, as the console shows it.
  await admin.locator(`[data-testid=orders] tr[data-order="${PORTAL}"][data-refund-status="partially_refunded"]`).waitFor(WAIT);
  await bothLanguages(admin, "console-orders");

  await r.getByTestId("refund").click();
  const dialog = admin.getByRole("dialog");
  await dialog.getByTestId("refund-figures").filter({ hasText: /left to refund\s+\S*AED\s87\.05/ }).waitFor(WAIT);
  // An amount above what is left: refused next to its field before sending.
  await dialog.getByTestId("refund-mode").getByText("An amount", { exact: true }).click();
  await dialog.locator('input[name="amount"]').fill("100");
  await dialog.locator('input[name="reason"]').fill("Never delivered");
  await dialog.getByRole("button", { name: "Request refund" }).click();
  await dialog.locator('input[name="amount"][aria-invalid="true"]').waitFor(WAIT);
  await dialog.getByText(/At most \S*AED\s87\.05\S* is left to refund\./).waitFor(WAIT);
  // All that is left.
  await dialog.getByTestId("refund-mode").getByText("All that is left", { exact: true }).click();
  await dialog.getByText(/AED\s87\.05\S* goes back to the customer/).waitFor(WAIT);
  await accessible(admin, "the console's refund dialog");
  await shot(admin, "console-refund-en", { fullPage: false });
  await dialog.getByRole("button", { name: "Request refund" }).click();
  await dialog.waitFor({ state: "hidden", ...WAIT });
  await r.locator('[data-refund-item-status="requested"]').waitFor(WAIT);
  await releaseRefund(env("CONSOLE_INTENT"));
  await admin.locator(`[data-testid=orders] tr[data-order="${CONSOLE}"][data-refund-status="refunded"]`).waitFor(WAIT);
  // Nothing left: no refund button.
  await counted(r.getByTestId("refund"), 0, "the refund button of an order refunded in full");

  await admin.locator('input[name="intent"]').fill(env("CONSOLE_INTENT"));
  await admin.getByTestId("find-order").click();
  await admin.locator(`[data-testid=found-order] tr[data-order="${CONSOLE}"][data-refund-status="refunded"]`).waitFor(WAIT);
  await accessible(admin, "an order found by its payment intent");
});

adminJourney("console: a disputed payment in the inbox, high priority, opening the disputes", async () => {
  await nav(admin, "Notifications");
  const notice = admin.locator('[data-testid="inbox"] article[data-type="dispute_opened"]').first();
  await notice.waitFor(WAIT);
  await notice.getByTestId("high-priority").waitFor(WAIT);
  assert.match(await text(notice), /Payment disputed/);
  await bothLanguages(admin, "console-inbox-dispute", async (lang) => {
    if (lang === "ar") assert.match(await text(notice), /دفع متنازع عليه/);
  });
  await notice.getByRole("link", { name: "Open Disputes" }).click();
  await admin.getByRole("heading", { name: "Disputes", exact: true }).waitFor(WAIT);
});

adminJourney("console: the disputes by deadline, closed at the processor, live", async () => {
  await nav(admin, "Disputes");
  const open = admin.locator(`[data-testid=disputes-open] tr[data-dispute="${DISPUTE}"]`);
  await open.waitFor(WAIT);
  assert.match(await text(open), /Bakery/);
  assert.match(await text(open), /\d+ days left/);
  await admin.getByTestId("disputes-closed-empty").waitFor(WAIT);
  await bothLanguages(admin, "console-disputes");
  await simulator("POST", `/simulator/disputes/${DISPUTE}/close`, { outcome: "won" });
  await admin.locator(`[data-testid=disputes-closed] tr[data-dispute="${DISPUTE}"][data-status="won"]`).waitFor(WAIT);
  await admin.getByTestId("disputes-open-empty").waitFor(WAIT);
  await accessible(admin, "a dispute won");
});

ownerJourney("portal: the dispute closed, live; the statement equals the wallet and downloads as CSV", async () => {
  // Still on the disputes screen: the dispute won arrives without a reload.
  await owner.locator(`[data-testid=disputes-closed] tr[data-dispute="${DISPUTE}"][data-status="won"]`).waitFor(WAIT);
  await owner.getByTestId("disputes-open-empty").waitFor(WAIT);

  await nav(owner, "Statement");
  await owner.getByRole("heading", { name: /^Statement: Bakery/ }).waitFor(WAIT);
  // This month, by default, as the API reads it (days in Dubai, UTC+4).
  const from = Date.parse(`${await owner.getByTestId("statement-from").inputValue()}T00:00:00.000+04:00`);
  const to = Date.parse(`${await owner.getByTestId("statement-to").inputValue()}T23:59:59.999+04:00`);
  assert.ok(from <= Date.now() && Date.now() <= to, `the default period ${from}-${to} is not this month`);
  const rows = owner.locator("[data-testid=statement] tr[data-seq]");
  // Both refunds and the dispute's release reached the wallet: every change of the journeys is in.
  await counted(owner.locator('[data-testid=statement] tr[data-kind="refund"]'), 2, "the refunds in the statement");
  await owner.locator('[data-testid=statement] tr[data-kind="dispute_release"]').waitFor(WAIT);
  const api = await call("query", env("OWNER_TOKEN"), "stores.wallet.getStatement", { storeId: STORE, from, to });
  await counted(rows, api.entries.length, "the statement's rows");
  const kinds = await rows.evaluateAll((els) => els.map((e) => e.dataset.kind));
  for (const k of ["earning", "payout_request", "dispute_hold", "refund", "dispute_release"]) assert.ok(kinds.includes(k), `no ${k} in ${kinds}`);
  // The running balance: each row's balance is the one before plus its amount, from the opening balance.
  let balance = fils(amountOf(await text(owner.getByTestId("statement-opening"))));
  for (const [amount, shownBalance] of await rows.evaluateAll((els) => els.map((e) => [Number(e.dataset.amount), Number(e.dataset.balance)]))) {
    balance += fils(amount);
    assert.equal(fils(shownBalance), balance, "a running balance");
  }
  const w = await wallet();
  const total = fils(w.availableBalance + w.pendingBalance + w.disputedBalance);
  assert.equal(fils(amountOf(await text(owner.getByTestId("statement-closing")))), total, "the closing balance is not the wallet's");
  assert.equal(balance, total, "the last running balance is not the wallet's");
  const amounts = await rows.evaluateAll((els) => els.map((e) => e.querySelectorAll("td")[2].innerText));
  assert.ok(amounts.some((a) => a.includes("-")) && amounts.some((a) => a.includes("+")), `signed amounts: ${amounts}`);

  // The CSV, fetched with the session's token and saved.
  const [download] = await Promise.all([owner.waitForEvent("download", WAIT), owner.getByTestId("statement-download").click()]);
  assert.match(download.suggestedFilename(), /^statement-.*\.csv$/);
  const lines = readFileSync(await download.path(), "utf8").trim().split("\n");
  assert.match(lines[0], /^seq,at,kind,description,amount,balance,/);
  assert.match(lines[1], /^,\d+,opening_balance,/);
  assert.equal(lines.length, api.entries.length + 3, "the CSV's rows");
  assert.deepEqual(
    lines.slice(2, -1).map((l) => Number(l.split(",")[0])),
    api.entries.map((e) => e.seq),
  );
  const closing = lines.at(-1).split(",");
  assert.equal(closing[2], "closing_balance");
  assert.equal(fils(Number(closing[5])), total);
  await bothLanguages(owner, "portal-statement", async (lang) => {
    if (lang !== "ar") return;
    await owner.getByRole("heading", { name: /^كشف الحساب/ }).waitFor(WAIT);
    // Right to left, the amounts still read left to right: a negative
    // amount's minus sign is drawn left of its digits.
    const negative = rows.filter({ has: owner.locator("td:nth-child(3)", { hasText: "-" }) }).first();
    const sides = await negative.locator("td:nth-child(3) bdi").evaluate((el) => {
      const t = el.firstChild;
      const x = (i) => {
        const r = document.createRange();
        r.setStart(t, i);
        r.setEnd(t, i + 1);
        return r.getBoundingClientRect().x;
      };
      const s = t.textContent;
      return { minus: x(s.indexOf("-")), digit: x(s.search(/\d/)) };
    });
    assert.ok(sides.minus < sides.digit, `a negative amount in Arabic reads right to left: ${JSON.stringify(sides)}`);
    assert.equal(await owner.locator("main").evaluate((el) => getComputedStyle(el).direction), "rtl");
  });
});
