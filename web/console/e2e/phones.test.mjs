// Phones and keyboards (issue 32, item 7; ADR 0158), run by
// TestPhonesInBrowser (deploy/e2e/console_phones_test.go): every screen of
// src/app/areas.ts at 390 px in English and Arabic (no sideways scroll, axe
// with no violation, the drawer closing once a screen is chosen, Sign out
// in the Account menu), the Orders lists of both areas as cards with their
// filters usable, the skip link first on the keyboard, and every screen
// axe-clean in a dark system at 1280 px.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { WAIT, accessible, env, launch, noSideScroll, open, settled, shot, until } from "./browser.mjs";

/** The paths of an area's screens, in the order src/app/areas.ts lists them. */
function screensOf(area) {
  const src = readFileSync(new URL("../src/app/areas.ts", import.meta.url), "utf8");
  const block = src.slice(src.indexOf(`  ${area}: [`), src.indexOf("],", src.indexOf(`  ${area}: [`)));
  const paths = [...block.matchAll(/path: "([^"]+)"/g)].map((m) => m[1]);
  assert.ok(paths.length > 3, `the screens of ${area} in areas.ts: ${paths}`);
  return paths;
}

const SHOTS = new Set(["admin/payouts", "admin/moderation", "admin/orders", "store/orders", "store/statement", "store/reviews", "store/wallet"]);

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const accountPanel = (page) => page.getByTestId("account-panel");

async function openAccount(page) {
  await page.getByTestId("account-menu").click();
  await accountPanel(page).waitFor(WAIT);
}

async function closeAccount(page) {
  await page.keyboard.press("Escape");
  await accountPanel(page).waitFor({ state: "hidden", ...WAIT });
}

/** The element is wholly inside the window (not cut by its edge). */
async function inView(page, locator, what) {
  const box = await locator.boundingBox();
  const { width, height } = page.viewportSize();
  assert.ok(box && box.x >= 0 && box.y >= 0 && box.x + box.width <= width + 0.5 && box.y + box.height <= height + 0.5, `${what}: ${JSON.stringify(box)} not inside ${width}x${height}`);
}

for (const [area, token] of [
  ["admin", "ADMIN_TOKEN"],
  ["store", "OWNER_TOKEN"],
]) {
  test(`phones: every ${area} screen at 390 px, in English and Arabic`, async () => {
    const paths = screensOf(area);
    const page = await open(browser, `/${area}/${paths[0]}`, env(token), { width: 390 });
    try {
      await page.locator("#main h2").first().waitFor(WAIT);
      // The drawer closes on Escape, and on its close button.
      await page.getByTestId("nav-burger").click();
      const drawer = page.getByRole("dialog");
      await drawer.getByRole("navigation").waitFor(WAIT);
      await page.keyboard.press("Escape");
      await drawer.waitFor({ state: "detached", ...WAIT });
      for (const lang of ["en", "ar"]) {
        if (lang === "ar") {
          await openAccount(page);
          await accountPanel(page).getByTestId("language").click();
          await page.locator('html[lang="ar"][dir="rtl"]').waitFor(WAIT);
          await closeAccount(page);
        }
        for (const path of paths) {
          const what = `${area}/${path} (${lang}, 390 px)`;
          await page.getByTestId("nav-burger").click();
          const link = page.getByRole("dialog").getByRole("navigation").locator(`a[href="/${area}/${path}"]`);
          await link.click();
          // The drawer closes once a screen is chosen.
          await page.getByRole("dialog").waitFor({ state: "detached", ...WAIT });
          await page.waitForURL((u) => u.pathname === `/${area}/${path}`, WAIT);
          await page.locator("#main h2").first().waitFor(WAIT);
          await settled(page, what);
          await noSideScroll(page, what);
          await accessible(page, what);
          await inView(page, page.getByTestId("account-menu"), `${what}: the Account button`);
          if (SHOTS.has(`${area}/${path}`)) await shot(page, `${area}-${path}-${lang}-390`);
        }
        // Sign out is in the Account menu, whole, on the last screen too.
        await openAccount(page);
        const signOut = accountPanel(page).getByTestId("account-signout");
        await inView(page, signOut, `Sign out (${lang})`);
        await accessible(page, `${area}: the Account menu (${lang}, 390 px)`);
        if (lang === "ar") {
          await shot(page, `${area}-account-ar-390`, { fullPage: false });
          await signOut.click();
          await page.locator("#main").waitFor({ state: "detached", ...WAIT });
          await page.getByRole("heading", { name: "تسجيل الدخول" }).waitFor(WAIT);
        } else {
          await closeAccount(page);
        }
      }
      assert.deepEqual(page.problems, [], "errors on the page");
    } finally {
      await page.context().close();
    }
  });
}

// The two Orders lists at 390 px (issue 32, item 8), in English and Arabic:
// the rows are cards (each shown cell labelled by its column, the headings
// that do not sort hidden), and the filters are usable on a phone: the
// period's presets, the status (the administrator's menu, the owner's
// segments) and the sortable heading, each whole across the screen, each
// changing the rows; nothing scrolls sideways and axe finds nothing, with
// the status menu open too.
const WORDS = {
  en: { today: "Today", thisMonth: "This month", all: "All", allStatuses: "All statuses", delivered: "Delivered", cancelled: "Cancelled" },
  ar: { today: "اليوم", thisMonth: "هذا الشهر", all: "الكل", allStatuses: "كل الحالات", delivered: "تم التوصيل", cancelled: "ملغى" },
};

/** The element spans no more than the window's width (it may be below the fold). */
async function across(page, locator, what) {
  const box = await locator.boundingBox();
  const { width } = page.viewportSize();
  assert.ok(box && box.width > 0 && box.x >= 0 && box.x + box.width <= width + 0.5, `${what}: ${JSON.stringify(box)} wider than the ${width} px window`);
}

/** The order's row is a card: a block within the window, every shown cell labelled by its column. */
async function asCard(page, row, what) {
  const card = await row.evaluate((tr) => {
    const table = tr.closest("table");
    const shown = [...tr.children].filter((td) => getComputedStyle(td).display !== "none");
    const r = tr.getBoundingClientRect();
    return {
      row: getComputedStyle(tr).display,
      table: getComputedStyle(table).display,
      hiddenHeads: [...table.querySelectorAll("thead th:not([aria-sort])")].every((th) => getComputedStyle(th).display === "none"),
      labels: shown.map((td) => getComputedStyle(td, "::before").content),
      left: r.left,
      right: r.right,
      window: window.innerWidth,
    };
  });
  assert.equal(card.row, "block", `${what}: the row is a card`);
  assert.equal(card.table, "block", `${what}: the table is a list of cards`);
  assert.ok(card.hiddenHeads, `${what}: the headings that do not sort are hidden`);
  assert.ok(card.labels.length >= 3, `${what}: the card's cells ${JSON.stringify(card.labels)}`);
  for (const l of card.labels) assert.match(l, /^".+"$/, `${what}: a cell without its column's name (${JSON.stringify(card.labels)})`);
  assert.equal(new Set(card.labels).size, card.labels.length, `${what}: the cells' names repeat (${JSON.stringify(card.labels)})`);
  assert.ok(card.left >= 0 && card.right <= card.window + 0.5, `${what}: the card spans ${card.left}-${card.right} of ${card.window} px`);
}

for (const [area, token] of [
  ["admin", "ADMIN_TOKEN"],
  ["store", "OWNER_TOKEN"],
]) {
  test(`phones: the ${area}'s Orders list at 390 px: cards, filters usable, in English and Arabic`, async () => {
    const page = await open(browser, `/${area}/orders`, env(token), { width: 390 });
    const order = env("ORDER_ID");
    const row = page.locator(`table tr[data-order="${order}"]`);
    try {
      for (const lang of ["en", "ar"]) {
        const w = WORDS[lang];
        const what = (s) => `${area}/orders (${lang}, 390 px): ${s}`;
        if (lang === "ar") {
          await openAccount(page);
          await accountPanel(page).getByTestId("language").click();
          await page.locator('html[lang="ar"][dir="rtl"]').waitFor(WAIT);
          await closeAccount(page);
        }
        await row.waitFor(WAIT);
        await settled(page, what("the list"));
        await asCard(page, row, what("the order"));
        for (const id of ["period", "orders-csv", area === "admin" ? "status-filter" : "order-filter"]) await across(page, page.getByTestId(id), what(id));
        // The period: today holds the order.
        await page.getByTestId("period").getByText(w.today, { exact: true }).click();
        await row.waitFor(WAIT);
        // The status: cancelled empties the list, delivered shows the order.
        const pick = async (label) => {
          if (area === "admin") {
            await page.getByTestId("status-filter").click();
            const option = page.getByRole("option", { name: label, exact: true });
            await option.waitFor(WAIT);
            await across(page, page.getByRole("listbox"), what("the status menu"));
            if (label === w.cancelled) {
              await noSideScroll(page, what("the status menu open"));
              await accessible(page, what("the status menu open"));
            }
            await option.click();
            await page.getByRole("listbox").waitFor({ state: "hidden", ...WAIT });
          } else {
            await page.getByTestId("order-filter").getByText(label, { exact: true }).click();
          }
        };
        await pick(w.cancelled);
        await page.getByTestId("orders-empty").waitFor(WAIT);
        assert.equal(await row.count(), 0, what("a delivered order under Cancelled"));
        await pick(w.delivered);
        await page.locator(`table tr[data-order="${order}"][data-status="delivered"]`).waitFor(WAIT);
        // The sortable heading stays above the cards, and sorts.
        const sorter = page.locator('th[data-sort="date"]');
        await across(page, sorter, what("the date's sort"));
        assert.equal(await sorter.getAttribute("aria-sort"), "descending");
        await sorter.getByRole("button").click();
        await until(() => sorter.getAttribute("aria-sort"), "ascending", what("sorted oldest first"));
        await row.waitFor(WAIT);
        await settled(page, what("filtered"));
        await asCard(page, row, what("the order, filtered"));
        await noSideScroll(page, what("filtered"));
        await accessible(page, what("filtered"));
        await shot(page, `${area}-orders-filtered-${lang}-390`);
        // Back as it was: every status, this month, newest first.
        await pick(area === "admin" ? w.allStatuses : w.all);
        await page.getByTestId("period").getByText(w.thisMonth, { exact: true }).click();
        await sorter.getByRole("button").click();
        await until(() => sorter.getAttribute("aria-sort"), "descending", what("newest first again"));
      }
      assert.deepEqual(page.problems, [], "errors on the page");
    } finally {
      await page.context().close();
    }
  });
}

test("keyboard: the first Tab stop is the skip link, which moves focus to the content; focus is visible", async () => {
  for (const width of [1280, 390]) {
    const page = await open(browser, "/store/orders", env("OWNER_TOKEN"), { width });
    try {
      await page.locator("#main h2").first().waitFor(WAIT);
      await settled(page, `the portal at ${width} px`);
      await page.keyboard.press("Tab");
      const first = await page.evaluate(() => ({ testId: document.activeElement?.getAttribute("data-testid"), outline: getComputedStyle(document.activeElement).outlineStyle, top: document.activeElement.getBoundingClientRect().top }));
      assert.equal(first.testId, "skip-link", `the first Tab stop at ${width} px`);
      assert.notEqual(first.outline, "none", "the skip link's focus is visible");
      assert.ok(first.top >= 0, `the focused skip link is on screen: ${first.top}`);
      await page.keyboard.press("Enter");
      assert.equal(await page.evaluate(() => document.activeElement?.id), "main", "Enter on the skip link focuses <main>");
      // The next stops are the content's, each with a visible outline.
      let stops = 0;
      for (;;) {
        await page.keyboard.press("Tab");
        const f = await page.evaluate(() => {
          const e = document.activeElement;
          return { inMain: !!e?.closest("#main"), tag: e?.tagName, outline: getComputedStyle(e).outlineStyle, width: getComputedStyle(e).outlineWidth };
        });
        if (!f.inMain) break;
        assert.ok(f.outline !== "none" && f.width !== "0px", `a focused ${f.tag} shows its focus: ${JSON.stringify(f)}`);
        if (++stops === 5) break;
      }
      assert.ok(stops > 0, "Tab after the skip link reaches the content");
      if (width === 1280) await shot(page, "keyboard-focus", { fullPage: false });
      assert.deepEqual(page.problems, [], "errors on the page");
    } finally {
      await page.context().close();
    }
  }
});

for (const [area, token] of [
  ["admin", "ADMIN_TOKEN"],
  ["store", "OWNER_TOKEN"],
]) {
  test(`dark: every ${area} screen at 1280 px in a dark system is axe-clean`, async () => {
    const paths = screensOf(area);
    const page = await open(browser, `/${area}/${paths[0]}`, env(token), { colorScheme: "dark" });
    try {
      await page.locator('html[data-mantine-color-scheme="dark"]').waitFor(WAIT);
      for (const path of paths) {
        await page.getByRole("navigation").locator(`a[href="/${area}/${path}"]`).click();
        await page.waitForURL((u) => u.pathname === `/${area}/${path}`, WAIT);
        await page.locator("#main h2").first().waitFor(WAIT);
        await accessible(page, `${area}/${path} (dark)`);
        if (SHOTS.has(`${area}/${path}`)) await shot(page, `${area}-${path}-dark`);
      }
      assert.deepEqual(page.problems, [], "errors on the page");
    } finally {
      await page.context().close();
    }
  });
}
