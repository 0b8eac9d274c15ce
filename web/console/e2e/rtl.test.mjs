// Journey R1 of issue 32 (deploy/e2e TestRightToLeftInBrowser starts the
// system and fills it): text people typed, in either direction, reads right
// in a page of either direction. Checked on the DOM (isolation, dir, text
// order), on the boxes the browser drew (name before date in the reading
// direction), and photographed.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { accessible, env, launch, noSideScroll, open, shot, text, WAIT } from "./browser.mjs";

const REVIEWS = [
  { id: env("REVIEW_ARABIC_NAME"), name: "نور حسن", comment: "Fresh, and on time.", commentDir: "ltr" },
  { id: env("REVIEW_LATIN_NAME"), name: "Noor Hassan", comment: "خبز طازج، ووصل في الوقت.", commentDir: "rtl" },
];

let browser;
let page;
before(async () => {
  browser = await launch();
  page = await open(browser, "/store/reviews", env("OWNER_TOKEN"));
  await page.locator("article[data-review]").first().waitFor(WAIT);
});
after(async () => {
  try {
    if (page) assert.deepEqual(page.problems, []);
  } finally {
    await browser?.close();
  }
});

/** Every review's name, date and comment, checked in the page's direction. */
async function checkReviews(dir) {
  for (const r of REVIEWS) {
    const card = page.locator(`article[data-review="${r.id}"]`);
    await card.waitFor(WAIT);
    const author = card.getByTestId("review-author");
    // The name is isolated: a <bdi> holding exactly the name.
    assert.equal(await author.evaluate((e) => e.tagName), "BDI", `${r.name}: the author is not isolated`);
    assert.equal(await text(author), r.name);
    // DOM order: name, "·", date; the date isolated too.
    const line = author.locator("xpath=..");
    assert.match(await text(line), new RegExp(`^${r.name} · \\S`), `${r.name}: the line's text order`);
    const date = line.locator("bdi").nth(1);
    assert.ok((await text(date)).match(/\d/), `${r.name}: no isolated date after the name`);
    // Drawn order: in a right-to-left page the name is right of the date, in a left-to-right one left of it.
    const [a, d] = [await author.boundingBox(), await date.boundingBox()];
    if (dir === "rtl") assert.ok(a.x >= d.x + d.width - 1, `${r.name}: drawn left of its date in Arabic (${JSON.stringify({ a, d })})`);
    else assert.ok(a.x + a.width <= d.x + 1, `${r.name}: drawn right of its date in English (${JSON.stringify({ a, d })})`);
    // The comment takes its own direction, whatever the page's.
    const comment = card.locator('[dir="auto"]').filter({ hasText: r.comment });
    assert.equal(await comment.count(), 1, `${r.name}: the comment is not a dir="auto" block`);
    assert.equal(await comment.evaluate((e) => getComputedStyle(e).direction), r.commentDir, `${r.name}: the comment's direction`);
  }
}

/** The other language: from the header, or on a phone from the Account menu. */
async function switchLanguage() {
  const account = page.getByTestId("account-menu");
  if (await account.isVisible()) {
    await account.click();
    await page.getByTestId("account-panel").getByTestId("language").click();
    await page.keyboard.press("Escape");
    await page.getByTestId("account-panel").waitFor({ state: "hidden", ...WAIT });
  } else {
    await page.getByTestId("language").first().click();
  }
}

for (const width of [1280, 390]) {
  test(`reviews by an Arabic and a Latin name, English and Arabic, at ${width} px`, async () => {
    await page.setViewportSize({ width, height: width > 500 ? 860 : 844 });
    await page.locator('html[lang="en"][dir="ltr"]').waitFor(WAIT);
    await checkReviews("ltr");
    await noSideScroll(page, `reviews in English at ${width} px`);
    await accessible(page, `reviews in English at ${width} px`);
    await switchLanguage();
    await page.locator('html[lang="ar"][dir="rtl"]').waitFor(WAIT);
    await checkReviews("rtl");
    await noSideScroll(page, `reviews in Arabic at ${width} px`);
    await accessible(page, `reviews in Arabic at ${width} px`);
    await shot(page, width > 500 ? "rtl-review-ar" : "rtl-review-ar-390", { fullPage: false });
    await switchLanguage();
    await page.locator('html[lang="en"]').waitFor(WAIT);
  });
}
