// Run by checks.test.mjs in a child node, against its page at /home (not a
// test of its own: two of these journeys fail on purpose). Four journeys on
// one shared page, through journeys() of browser.mjs.
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { journeys, launch, open, WAIT } from "./browser.mjs";

const home = { path: "/home", ready: (page) => page.getByRole("heading", { name: "Home" }).waitFor(WAIT) };
let browser;
let page;
before(async () => {
  browser = await launch();
  page = await open(browser, home.path);
  await home.ready(page);
  await page.evaluate(() => (window.__sameDocument = true));
});
after(async () => {
  await browser?.close();
});

const journey = journeys(() => page, home);

journey("fails with a dialog open and a second context", async () => {
  await page.getByRole("button", { name: "Open" }).click();
  await page.getByRole("dialog").waitFor(WAIT);
  await (await browser.newContext()).newPage();
  await page.evaluate(() => (window.__sameDocument = false));
  assert.fail("failing on purpose, the dialog open");
});

journey("starts with no dialog, one context, the page marked", async () => {
  assert.equal(await page.getByRole("dialog").count(), 0, "the dialog of the failed journey is still open");
  assert.equal(browser.contexts().length, 1, "the failed journey's other context is still open");
  assert.equal(await page.evaluate(() => window.__sameDocument), true);
  await page.getByRole("button", { name: "Open" }).click({ trial: true });
});

journey("passes its own steps but leaves a dialog open", async () => {
  await page.getByRole("button", { name: "Open" }).click();
  await page.getByRole("dialog").waitFor(WAIT);
});

journey("starts clean after that too", async () => {
  assert.equal(await page.getByRole("dialog").count(), 0, "the dialog left open is still open");
});
