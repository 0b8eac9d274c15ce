// What the console's browser tests share: the environment TestConsole*InBrowser
// sets, a Chromium launched with the flags a closed, sandboxed machine needs,
// pages that record their errors, axe-core, screenshots, both languages, and
// calls to the API as other clients make them.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { AxeBuilder } from "@axe-core/playwright";
import { test } from "node:test";
import { chromium } from "playwright-core";

export const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this through go test ./deploy/e2e -run 'TestConsole.*InBrowser'`);
  return v;
};

// How long a state may take to appear: generous, since make test runs every
// package at once on two cores, and other work may share them (loading a
// page took 20-40 s at a load average of 25). Every page's default for
// navigation and actions too.
export const WAIT = { timeout: 60_000 };

export async function launch() {
  mkdirSync(env("SCREENSHOTS"), { recursive: true });
  const args = ["--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"];
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  return chromium.launch({ executablePath: env("CHROMIUM"), headless: true, args });
}

/**
 * Waits until read() answers want (deep equality), then asserts it. What a
 * screen shows after an action arrives a render or a query later: a list
 * whose query's arguments change (a filter switched) shows its loader and no
 * rows for a moment, and a form is emptied after its mutation's answer, which
 * can come after the live list already shows the new row. A value read at
 * once can read that moment, as a count did on a loaded machine.
 */
export async function until(read, want, what) {
  const end = Date.now() + WAIT.timeout;
  let got;
  while (!isDeepStrictEqual((got = await read()), want) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(got, want, what);
}

/** Waits until locator matches n elements (until). */
export const counted = (locator, n, what) => until(() => locator.count(), n, what);

/**
 * An element's text with Intl's no-break spaces as plain ones and without
 * the isolation marks t() sets around parameters (U+2068, U+2069).
 */
export async function text(locator) {
  return (await locator.innerText()).replace(/[\u00a0\u202f]/g, " ").replace(/[\u2068\u2069]/g, "");
}

/**
 * A page of the console at path, signed in with token, recording its errors;
 * width (1280 unless told; 390 is a phone, 844 high) and colorScheme (the
 * system's: "light" unless told) set the browser's window.
 */
export async function open(browser, path, token, { width = 1280, colorScheme = "light" } = {}) {
  const viewport = { width, height: width < 768 ? 844 : 860 };
  const context = await browser.newContext({ viewport, locale: "en-US", timezoneId: "Europe/London", colorScheme });
  context.setDefaultTimeout(WAIT.timeout);
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

/**
 * Waits until the page is in the state a check judges, settled: no animation
 * or transition running or about to start (a dialog fading in is measured
 * half transparent; a loader spins until its list is there), and the
 * document unchanged, not an attribute, node or text, for quiet ms and at
 * least three frames. Mantine starts a dialog's transition two frames after
 * adding it, with nothing running in between, so "no animation now" alone
 * passed on the dialog's first frame, as it did on a quiet machine; a
 * renderer that draws in idle time (the API reference) needs a longer quiet.
 * On timeout (WAIT unless told) it names what was still moving.
 */
export async function settled(page, what, { quiet = 300, timeout = WAIT.timeout } = {}) {
  try {
    await page.waitForFunction(
      (quiet) => {
        const name = (n) => {
          const e = n?.nodeType === 1 ? n : n?.parentElement;
          if (!e) return String(n);
          const testId = e.getAttribute("data-testid");
          return `<${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}${testId ? ` data-testid=${testId}` : ""} class="${String(e.className).slice(0, 80)}">`;
        };
        // Installed once per document: what changed last, and when.
        const w = (window.__settle ??= (() => {
          const s = { since: performance.now(), frames: 0, last: "nothing yet" };
          new MutationObserver((records) => {
            s.since = performance.now();
            s.frames = 0;
            s.last = `${records.at(-1).type} of ${name(records.at(-1).target)}`;
          }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
          return s;
        })());
        const moving = document.getAnimations().filter((a) => a.playState === "running" || a.pending);
        if (moving.length > 0) {
          const a = moving[0];
          w.since = performance.now();
          w.frames = 0;
          w.last = `${moving.length} running, such as ${a.constructor.name} ${a.animationName ?? a.transitionProperty ?? ""} of ${name(a.effect?.target)}`;
          return false;
        }
        w.frames++;
        return w.frames >= 3 && performance.now() - w.since >= quiet;
      },
      quiet,
      { polling: "raf", timeout },
    );
  } catch (e) {
    const last = await page.evaluate(() => window.__settle?.last).catch(() => "unknown");
    throw new Error(`${what}: the page did not settle in ${timeout} ms (unchanged for ${quiet} ms); last change: ${last}`, { cause: e });
  }
}

/**
 * axe-core on the page once settled: no violation at all, of any impact.
 * except names rules a page may break that the project cannot fix (a
 * vendored, unmodified third-party page), each with its reason at the call.
 */
export async function accessible(page, what, { quiet, except = [] } = {}) {
  await settled(page, what, { quiet });
  const r = await new AxeBuilder({ page }).analyze();
  const bad = r.violations.filter((v) => !except.includes(v.id));
  assert.deepEqual(
    bad.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => `${n.target.join(" ")} ${n.html.slice(0, 160)}`).join(", ")}`),
    [],
    `${what}: accessibility violations`,
  );
}

/**
 * Nothing on the page scrolls sideways: neither the document nor any element
 * whose overflow-x is auto or scroll (a table's scroll container, a code
 * block) is wider than its box (scrollWidth <= clientWidth + 1). Names each
 * offender, and the widest element inside it that sticks out.
 */
export async function noSideScroll(page, what) {
  const wide = await page.evaluate(() => {
    const name = (e) => {
      const testId = e.getAttribute("data-testid");
      return `<${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}${testId ? ` data-testid=${testId}` : ""} class="${String(e.className).slice(0, 60)}">`;
    };
    const culprit = (box) => {
      const edge = box === document.documentElement ? window.innerWidth : box.getBoundingClientRect().right;
      const start = box === document.documentElement ? 0 : box.getBoundingClientRect().left;
      let worst = null;
      for (const e of box.querySelectorAll("*")) {
        const r = e.getBoundingClientRect();
        if (r.width === 0) continue;
        const out = Math.max(r.right - edge, start - r.left);
        if (out > 1 && (!worst || out > worst.out)) worst = { out, e };
      }
      return worst ? `${name(worst.e)} sticks out by ${Math.round(worst.out)} px` : "nothing found sticking out";
    };
    const out = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth + 1) out.push(`the document: ${doc.scrollWidth} > ${doc.clientWidth} (${culprit(doc)})`);
    for (const e of document.body.querySelectorAll("*")) {
      const s = getComputedStyle(e);
      if ((s.overflowX === "auto" || s.overflowX === "scroll") && e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0) {
        out.push(`${name(e)}: ${e.scrollWidth} > ${e.clientWidth} (${culprit(e)})`);
      }
    }
    return out;
  });
  assert.deepEqual(wide, [], `${what}: scrolls sideways at ${page.viewportSize()?.width} px`);
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

/**
 * test() for the journeys of a file that share one page, run one after
 * another on it (live updates proven without a reload), each starting clean.
 * A journey must leave no dialog open. One that fails leaves the page as
 * it was (a dialog open, a form half filled, the screen in Arabic): the
 * contexts it opened besides the shared page are closed and the page is
 * loaded again at home.path, in English, until home.ready, so the failure
 * is reported once and the journeys after it still run. shared() is the
 * page (opened in before()); the reload sets page.startingOver while it
 * runs and marks the new document __sameDocument again.
 */
export function journeys(shared, home) {
  return (name, fn) =>
    test(name, async () => {
      const page = shared();
      try {
        await fn();
        await settled(page, `${name}: at its end`);
        assert.equal(await page.getByRole("dialog").count(), 0, `${name}: a dialog is left open`);
      } catch (e) {
        await startOver(page, home).catch((err) => console.error(`starting over after "${name}" failed too: ${err.message}`));
        throw e;
      }
    });
}

async function startOver(page, { path, ready }) {
  for (const context of page.context().browser().contexts()) if (context !== page.context()) await context.close();
  page.startingOver = true;
  try {
    await page.evaluate(() => localStorage.setItem("marketplace.lang", "en"));
    await page.goto(env("CONSOLE_URL") + path);
    await ready(page);
    await page.evaluate(() => (window.__sameDocument = true));
  } finally {
    page.startingOver = false;
  }
}

/**
 * A page of one area signed in with token, in a browser of its own (a
 * failing journey starts its page over and closes the other contexts of its
 * browser, which must not be another area's page): opened at home.path,
 * ready (home.ready), and marked __sameDocument, which closeAreas checks.
 * The browser is closed again if the page does not open.
 */
export async function openArea(home, token) {
  const browser = await launch();
  try {
    const page = await open(browser, home.path, token);
    await home.ready(page);
    await page.evaluate(() => (window.__sameDocument = true));
    return page;
  } catch (e) {
    await browser.close();
    throw e;
  }
}

/**
 * The end of a file of journeys over pages of openArea (in after()): no
 * page recorded an error or was loaded again; their browsers are closed
 * either way. A page not opened (undefined) is passed over.
 */
export async function closeAreas(...pages) {
  try {
    for (const page of pages) {
      if (!page) continue;
      assert.deepEqual(page.problems, []);
      assert.equal(await page.evaluate(() => window.__sameDocument), true, `${page.url()} reloaded`);
    }
  } finally {
    for (const page of pages) await page?.context().browser().close();
  }
}

/** RFC 4180 rows (quoted cells, doubled quotes, CRLF). */
export function parseCSV(s) {
  const rows = [];
  let row = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (quoted) {
      if (ch === '"' && s[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && s[i + 1] === "\n") i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else cell += ch;
  }
  if (cell !== "" || row.length > 0) rows.push([...row, cell]);
  return rows;
}

/** Clicks a CSV button (CsvButton) and reads the file the browser saves: its name and its rows (parseCSV). */
export async function downloadCSV(page, button) {
  const [download] = await Promise.all([page.waitForEvent("download", WAIT), button.click()]);
  return { name: download.suggestedFilename(), rows: parseCSV(readFileSync(await download.path(), "utf8")) };
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
