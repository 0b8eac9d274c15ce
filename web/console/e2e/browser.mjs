// What the console's browser tests share: the environment TestConsole*InBrowser
// sets, a Chromium launched with the flags a closed, sandboxed machine needs,
// pages that record their errors, axe-core, screenshots, both languages, and
// calls to the API as other clients make them.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AxeBuilder } from "@axe-core/playwright";
import { chromium } from "playwright-core";

export const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this through go test ./deploy/e2e -run 'TestConsole.*InBrowser'`);
  return v;
};

// Generous: make test runs every package at once on two cores.
export const WAIT = { timeout: 30_000 };

export async function launch() {
  mkdirSync(env("SCREENSHOTS"), { recursive: true });
  const args = ["--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"];
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  return chromium.launch({ executablePath: env("CHROMIUM"), headless: true, args });
}

/**
 * Waits until locator matches n elements. A list whose query's arguments
 * change (a filter switched) shows its loader and no rows for a moment: a
 * count taken at once can read that moment, as it did on a loaded machine.
 */
export async function counted(locator, n, what) {
  const end = Date.now() + WAIT.timeout;
  let c;
  while ((c = await locator.count()) !== n && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  assert.equal(c, n, what);
}

/** An element's text with Intl's no-break spaces as plain ones. */
export async function text(locator) {
  return (await locator.innerText()).replace(/[\u00a0\u202f]/g, " ");
}

/** A page of the console at path, signed in with token, recording its errors. */
export async function open(browser, path, token) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: "en-US", timezoneId: "Europe/London" });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  // Convex's client logs a refused mutation too; the screens show those.
  // Only the console's own: an identity provider's page (its missing favicon) is not the app's.
  page.on(
    "console",
    (m) => m.type() === "error" && m.location().url.startsWith(env("CONSOLE_URL")) && !m.text().startsWith("[CONVEX M(") && problems.push(`console error: ${m.text()}`),
  );
  page.problems = problems;
  await page.goto(env("CONSOLE_URL") + path + (token ? `#token=${token}` : ""));
  return page;
}

/** axe-core on the page as it is: no serious or critical violation. */
export async function accessible(page, what) {
  // A dialog fading in is measured half transparent: wait for transitions to end.
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running"), null, WAIT);
  const r = await new AxeBuilder({ page }).analyze();
  const bad = r.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(
    bad.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => `${n.target.join(" ")} ${n.html.slice(0, 160)}`).join(", ")}`),
    [],
    `${what}: accessibility violations`,
  );
}

/**
 * A screenshot into SCREENSHOTS (a temporary folder, or docs/console with
 * UPDATE_SCREENSHOTS=1: webtest.Screenshots), and into SCREENSHOTS_DOCS too
 * when the documentation lacks it.
 */
export async function shot(page, name, { fullPage = true } = {}) {
  const file = `${name}.png`;
  // From the top: a page photographed whole while scrolled shows its sticky header midway.
  if (fullPage) await page.evaluate(() => window.scrollTo(0, 0));
  const buf = await page.screenshot({ path: join(env("SCREENSHOTS"), file), fullPage, animations: "disabled" });
  const docs = process.env.SCREENSHOTS_DOCS;
  if (docs && !existsSync(join(docs, file))) {
    mkdirSync(docs, { recursive: true });
    writeFileSync(join(docs, file), buf);
  }
}

/** The screen, checked and photographed in the language it shows, then in the other. */
export async function bothLanguages(page, name, check) {
  for (const lang of ["en", "ar"]) {
    await page.locator(`html[lang="${lang}"]`).waitFor(WAIT);
    if (check) await check(lang);
    await accessible(page, `${name} (${lang})`);
    await shot(page, `${name}-${lang}`);
    await page.getByTestId("language").first().click();
  }
  await page.locator('html[lang="en"]').waitFor(WAIT);
}

/** An operation through the gateway's HTTP API, as any client calls it. */
export async function call(kind, token, path, args) {
  const r = await fetch(`${env("CONSOLE_URL")}/api/${kind}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ path, args }),
  });
  const body = await r.json();
  assert.equal(r.status, 200, `${path}: ${JSON.stringify(body)}`);
  return body;
}

/** The number in an amount as shown ("AED 1,234.50" or "‏1,234.50 د.إ.‏"). */
export const amountOf = (s) => Number(s.replace(/[^\d.-]/g, ""));
