// The console and the portal in a real browser: Debian's Chromium driven by
// playwright-core, against the whole system that deploy/e2e
// (TestConsoleInBrowser) starts in-process and fills. axe-core checks every
// screen (no serious or critical violation), and each screen's screenshot, in
// English and Arabic, is taken (see shot).
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, test } from "node:test";
import { accessible, bothLanguages, env, launch, open as openIn, shot, text, WAIT } from "./browser.mjs";

const URL = env("CONSOLE_URL");
const IBAN = env("IBAN");

/** A development token, as `make token` mints them (HS256 with the system's secret). */
function mint(sub, roles, ttlSeconds) {
  const b64 = (v) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const now = Math.floor(Date.now() / 1000);
  const body = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ sub, roles, iat: now, exp: now + ttlSeconds })}`;
  return `${body}.${createHmac("sha256", env("DEV_SECRET")).update(body).digest("base64url")}`;
}

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** A page in a browser context of its own (browser.mjs open). */
const open = (path, token) => openIn(browser, path, token);

test("sign-in screen: a token is pasted, a malformed or expired one is refused in place", async () => {
  const page = await open("/admin/");
  await page.getByRole("heading", { name: /Sign in/ }).waitFor(WAIT);
  await bothLanguages(page, "signin", async (lang) => {
    assert.equal(await page.locator("html").getAttribute("dir"), lang === "ar" ? "rtl" : "ltr");
  });
  const input = page.getByTestId("token-input");
  await input.fill("not a token");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByText("This is not a token").waitFor(WAIT);
  await input.fill(env("EXPIRED_TOKEN"));
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByText("This token expired").waitFor(WAIT);
  // A good one signs in without a reload.
  await input.fill(env("ADMIN_TOKEN"));
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("heading", { name: "Payout queue" }).waitFor(WAIT);
  // The token never shows in the address bar.
  assert.ok(!page.url().includes("token"), page.url());
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("a screen a role may not use says so", async () => {
  const admin = await open("/admin/", env("USER_TOKEN"));
  await admin.getByTestId("denied").waitFor(WAIT);
  assert.match(await admin.getByTestId("denied").innerText(), /for administrators.*user-1/);
  assert.equal(admin.url(), `${URL}/admin/`, "the token left the address bar");
  await bothLanguages(admin, "denied-admin");
  await admin.context().close();

  const store = await open("/store/", env("USER_TOKEN"));
  await store.getByTestId("denied").waitFor(WAIT);
  assert.match(await store.getByTestId("denied").innerText(), /own no store/);
  await accessible(store, "portal without a store");
  await store.context().close();
});

test("journey 1: a payout requested in the portal is worked in the console, live on both sides", async () => {
  const admin = await open("/admin/", env("ADMIN_TOKEN"));
  const owner = await open("/store/wallet", env("OWNER_TOKEN"));

  // First load of the console: the script it fetched (gzipped, as sent).
  let scriptBytes = 0;
  const probe = await browser.newContext();
  probe.setDefaultTimeout(WAIT.timeout);
  const probePage = await probe.newPage();
  probePage.on("response", async (r) => {
    if (r.url().endsWith(".js")) scriptBytes += Number((await r.allHeaders())["content-length"] ?? 0);
  });
  const started = Date.now();
  await probePage.goto(`${URL}/admin/#token=${env("ADMIN_TOKEN")}`);
  await probePage.getByText("No open payouts.").waitFor(WAIT);
  console.log(`console first load: ${(scriptBytes / 1024).toFixed(1)} KB of script over the wire, first queue rendered after ${Date.now() - started} ms`);
  await probe.close();

  await admin.getByText("No open payouts.").waitFor(WAIT);
  await owner.getByTestId("wallet-available").waitFor(WAIT);
  assert.equal(await text(owner.getByTestId("wallet-available")), "AED 500.00");
  await owner.getByTestId("payout-rules").waitFor(WAIT);
  assert.match(await text(owner.getByTestId("payout-rules")), /Minimum AED 100\.00.*fee of AED 2\.00/);
  // Neither page reloads from here on: live updates only.
  await admin.evaluate(() => (window.__sameDocument = true));
  await owner.evaluate(() => (window.__sameDocument = true));

  // The IBAN and the minimum are checked before anything is sent.
  const form = owner.locator("form", { has: owner.locator('input[name="IBAN"]') });
  await form.locator('input[name="amount"]').fill("50");
  await form.locator('input[name="IBAN"]').fill(IBAN.slice(0, -1) + ((Number(IBAN.at(-1)) + 1) % 10));
  await form.locator('input[name="bankName"]').fill("Emirates NBD");
  await form.locator('input[name="accountHolderName"]').fill("Sara Al Marri");
  await form.getByRole("button", { name: "Request payout" }).click();
  await owner.getByText("The check digits do not match").waitFor(WAIT);
  await owner.getByText("The minimum payout is AED 100.00.").waitFor(WAIT);
  assert.equal(await form.locator('input[name="IBAN"]').getAttribute("aria-invalid"), "true");
  await owner.getByText("No payouts yet.").waitFor(WAIT);

  await form.locator('input[name="amount"]').fill("250");
  await form.locator('input[name="IBAN"]').fill(IBAN.replace(/(.{4})/g, "$1 ").trim()); // as people write it
  await owner.getByText("You receive AED 248.00").waitFor(WAIT);
  await form.getByRole("button", { name: "Request payout" }).click();
  await owner.getByText("Payout requested.").waitFor(WAIT);
  const ownerRow = owner.locator("[data-testid=payout-list] tr[data-payout]");
  await ownerRow.waitFor(WAIT);
  const payoutId = await ownerRow.getAttribute("data-payout");
  assert.equal(await ownerRow.getAttribute("data-status"), "requested");
  await owner.getByTestId("wallet-available").filter({ hasText: "AED 250.00" }).waitFor(WAIT);

  // The console's queue shows it without a reload.
  const row = admin.locator(`tr[data-payout="${payoutId}"]`);
  await row.waitFor(WAIT);
  const rowText = await text(row);
  for (const part of ["Al Noor Bakery", "Sara Al Marri", "+971501234567", "AED 250.00", "AED 2.00", "AED 248.00", IBAN, "Emirates NBD"]) {
    assert.ok(rowText.includes(part), `the queue's row lacks ${part}: ${rowText}`);
  }
  await bothLanguages(admin, "payout-queue");
  await bothLanguages(owner, "wallet");

  // Filters: by status and by store.
  await admin.getByText("Approved", { exact: true }).click();
  await admin.getByTestId("payouts-empty").waitFor(WAIT);
  await admin.getByText("Requested", { exact: true }).click();
  await row.waitFor(WAIT);
  await admin.getByText("All", { exact: true }).click();

  // A refusal from the server shows next to its field, and the dialog stays.
  await row.getByTestId("reject").click();
  let dialog = admin.getByRole("dialog");
  await dialog.locator('textarea[name="rejectionReason"]').fill("x".repeat(1001));
  await accessible(admin, "reject dialog");
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await dialog.locator('textarea[name="rejectionReason"][aria-invalid="true"]').waitFor(WAIT);
  assert.match(await dialog.innerText(), /rejectionReason/);
  await shot(admin, "payout-reject-refused-en", { fullPage: false });
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await dialog.waitFor({ state: "hidden", ...WAIT });

  // The owner follows in Arabic from here: statuses arrive in either language.
  await owner.getByTestId("language").first().click();
  await owner.locator('html[dir="rtl"]').waitFor(WAIT);

  // Approve.
  await row.getByTestId("approve").click();
  dialog = admin.getByRole("dialog");
  await dialog.getByText("Approve the payout of AED 250.00 to Al Noor Bakery?").waitFor(WAIT);
  await accessible(admin, "approve dialog");
  await shot(admin, "payout-approve-en", { fullPage: false });
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await dialog.waitFor({ state: "hidden", ...WAIT });
  await row.and(admin.locator('[data-status="approved"]')).waitFor(WAIT);
  await owner.locator(`tr[data-payout="${payoutId}"][data-status="approved"]`).waitFor(WAIT);
  assert.match(await owner.locator(`tr[data-payout="${payoutId}"]`).innerText(), /معتمد/);

  // Mark processing, with its method and reference.
  await row.getByTestId("processing").click();
  dialog = admin.getByRole("dialog");
  await dialog.locator('input[name="transactionReference"]').fill("TRX-2026-0001");
  await accessible(admin, "processing dialog");
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await dialog.waitFor({ state: "hidden", ...WAIT });
  await owner.locator(`tr[data-payout="${payoutId}"][data-status="processing"]`).waitFor(WAIT);

  // Complete: it leaves the queue; the owner sees it completed and paid out.
  await row.getByTestId("complete").click();
  dialog = admin.getByRole("dialog");
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await dialog.waitFor({ state: "hidden", ...WAIT });
  await row.waitFor({ state: "detached", ...WAIT });
  await admin.getByText("No open payouts.").waitFor(WAIT);
  await owner.locator(`tr[data-payout="${payoutId}"][data-status="completed"]`).waitFor(WAIT);
  await owner.getByTestId("wallet-paid-out").filter({ hasText: "250.00" }).waitFor(WAIT);
  // The portal's movements are the console's table: the payout's row named in the chosen language, not by its code, with the payout's status.
  await owner.locator('[data-testid="movements"] tr[data-kind="payout_request"]').filter({ hasText: "طلب صرف" }).filter({ has: owner.locator('[data-status="completed"]') }).waitFor(WAIT);

  // The Arabic portal is laid out right to left: the navigation on the right.
  const nav = await owner.locator("nav").first().boundingBox();
  const main = await owner.locator("main").first().boundingBox();
  assert.ok(nav.x > main.x, `navigation at x=${nav.x}, content at x=${main.x}: not right to left`);
  await accessible(owner, "portal in Arabic after the journey");

  for (const p of [admin, owner]) {
    assert.equal(await p.evaluate(() => window.__sameDocument), true, "a page reloaded");
    assert.deepEqual(p.problems, []);
  }
  console.log(`PAYOUT ${payoutId}`);
  await admin.context().close();
  await owner.context().close();
});

test("an expired session signs in again over the screen, and the form keeps what was filled", async () => {
  // The session must expire once the form is filled, not before. Where
  // loading the portal and filling it outlasts the token (a loaded machine),
  // that attempt is dropped, nothing sent, and made again with a token that
  // lasts twice as long.
  let owner;
  let form;
  let ttl = 15;
  for (;;) {
    const expires = Date.now() + ttl * 1000;
    owner = await open("/store/wallet", mint("owner-1", [], ttl));
    form = owner.locator("form", { has: owner.locator('input[name="IBAN"]') });
    const filled = await (async () => {
      await form.locator('input[name="amount"]').waitFor({ timeout: ttl * 1000 });
      await owner.evaluate(() => (window.__sameDocument = true));
      await form.locator('input[name="amount"]').fill("150");
      await form.locator('input[name="IBAN"]').fill(IBAN);
      await form.locator('input[name="bankName"]').fill("Emirates NBD");
      await form.locator('input[name="accountHolderName"]').fill("Sara Al Marri");
    })().then(
      () => true,
      () => false,
    );
    if (filled && (await owner.getByRole("dialog").count()) === 0 && Date.now() < expires) break;
    await owner.context().close();
    assert.ok(ttl < 240, `the portal could not be loaded and its form filled in ${ttl} s`);
    console.log(`a token of ${ttl} s ran out before the form was filled: again with ${ttl * 2} s`);
    ttl *= 2;
  }

  // The gateway ends the session when the token expires; the console asks
  // for a new one in a dialog over the screen.
  const dialog = owner.getByRole("dialog");
  await dialog.getByText("Your session has expired").waitFor({ timeout: ttl * 1000 + WAIT.timeout });
  await accessible(owner, "sign-in again dialog");
  await shot(owner, "signin-again-en", { fullPage: false });
  await dialog.getByTestId("token-input").fill(env("OWNER_TOKEN"));
  await dialog.getByRole("button", { name: "Sign in", exact: true }).click();
  await dialog.waitFor({ state: "hidden", ...WAIT });

  assert.equal(await form.locator('input[name="amount"]').inputValue(), "150");
  assert.equal(await form.locator('input[name="accountHolderName"]').inputValue(), "Sara Al Marri");
  await form.getByRole("button", { name: "Request payout" }).click();
  await owner.getByText("Payout requested.").waitFor(WAIT);
  await owner.locator('[data-testid=payout-list] tr[data-status="requested"]').waitFor(WAIT);
  assert.equal(await owner.evaluate(() => window.__sameDocument), true, "the page reloaded");
  assert.deepEqual(owner.problems, []);
  await owner.context().close();
});
