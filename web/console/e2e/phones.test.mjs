// Phones and keyboards (issue 32, item 7; ADR 0158), run by
// TestPhonesInBrowser (deploy/e2e/console_phones_test.go): every screen of
// src/app/areas.ts at 390 px in English and Arabic (no sideways scroll, axe
// with no violation, the drawer closing once a screen is chosen, Sign out
// in the Account menu), the skip link first on the keyboard, and every
// screen axe-clean in a dark system at 1280 px.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { WAIT, accessible, env, launch, noSideScroll, open, settled, shot } from "./browser.mjs";

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
