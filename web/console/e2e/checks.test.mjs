// The browser checks' own tests (browser.mjs: settled, journeys), run by
// web/console TestBrowserChecks in Chromium on small pages that do what the
// console's and the reference's pages do: a dialog whose fade starts two
// frames after it is added (Mantine's transitions), content drawn in steps
// in idle time (Scalar's reference), a loader that never stops, and journeys
// sharing one page where one fails with its dialog open.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { launch, settled } from "./browser.mjs";

let browser;
let page;
before(async () => {
  browser = await launch();
  page = await browser.newPage();
});
after(async () => {
  await browser?.close();
});

// Each page's script is a block: setContent writes into the same window,
// whose global names stay.

// A dialog as Mantine opens one: added transparent, its fade set after
// `start` (two frames, in Mantine), with nothing running in between; the
// transition's style removed when it ends. The fade is long, so a check
// that returned before it, or during it, reads the dialog transparent.
const fadingDialog = (start) => `<!doctype html><html lang="en"><body><main><h1>Fade</h1><button id="open">Open</button></main><script>{
const start = ${start};
document.getElementById("open").onclick = () => {
  const d = document.createElement("div");
  d.setAttribute("role", "dialog");
  d.setAttribute("aria-label", "Confirm");
  d.style.opacity = "0";
  d.innerHTML = "<button>Confirm</button>";
  document.body.append(d);
  start(() => {
    d.style.transition = "opacity 3000ms linear";
    d.style.opacity = "1";
    setTimeout(() => (d.style.transition = ""), 3000);
  });
};
}</script></body></html>`;

async function opensOpaque(start, options) {
  await page.setContent(fadingDialog(start));
  await page.click("#open");
  await settled(page, "the fading dialog", options);
  assert.equal(await page.getByRole("dialog").evaluate((d) => getComputedStyle(d).opacity), "1", "the dialog is judged before its fade ended");
  assert.equal(await page.evaluate(() => document.getAnimations().filter((a) => a.playState === "running").length), 0);
}

test("a dialog fading in is judged once opaque, not on its first frames (Mantine's two)", async () => {
  await opensOpaque("(f) => requestAnimationFrame(() => requestAnimationFrame(f))");
});

// The same with the fade starting 800 ms after the dialog: "no animation
// running" (the check before) holds at once and reads it transparent; a
// quiet of 1 s waits past the pause.
test("a pause shorter than the quiet before a fade starts is waited past", async () => {
  await opensOpaque("(f) => setTimeout(f, 800)", { quiet: 1_000 });
});

// Blocks drawn one after another, each a moment (400 ms) after the last and
// in idle time, as Scalar draws the reference's sections and code blocks.
const drawnInSteps = `<!doctype html><html lang="en"><body><main><h1>Steps</h1><ul id="list"></ul></main><script>{
let n = 0;
const step = () => {
  const li = document.createElement("li");
  li.textContent = "block " + ++n;
  document.getElementById("list").append(li);
  if (n < 5) setTimeout(() => requestIdleCallback(step, { timeout: 400 }), 400);
};
setTimeout(() => requestIdleCallback(step, { timeout: 400 }), 400);
}</script></body></html>`;

test("content drawn in steps is judged once the last is drawn, given a quiet longer than its pauses", async () => {
  await page.setContent(drawnInSteps);
  await settled(page, "the blocks", { quiet: 2_000 });
  assert.equal(await page.locator("#list li").count(), 5);
});

test("a loader that never stops is reported by name, not waited out", async () => {
  await page.setContent(`<!doctype html><html lang="en"><head><style>
@keyframes spin { to { transform: rotate(360deg) } }
.loader { width: 20px; height: 20px; border: 2px solid; animation: spin 1s linear infinite }
</style></head><body><main><h1>Loading</h1><div class="loader" role="status" aria-label="Loading"></div></main></body></html>`);
  await assert.rejects(settled(page, "the loading screen", { timeout: 2_000 }), (e) => {
    assert.match(e.message, /^the loading screen: the page did not settle in 2000 ms/);
    assert.match(e.message, /CSSAnimation spin of <div class="loader">/);
    return true;
  });
});

// Journeys on one shared page (journeys.fixture.mjs, in a child node): the
// first fails with a dialog open and another context left, the second finds
// neither; the third passes but leaves a dialog, which fails it, and the
// fourth again starts clean.
/** This process's environment with more, for a test runner of its own (not a child of this one's). */
function childEnv(more) {
  const env = { ...process.env, ...more };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

test("a journey that fails, or leaves a dialog open, leaves the next a clean page", async () => {
  const home = `<!doctype html><html lang="en"><head><title>Home</title></head><body><main><h1>Home</h1><button id="open">Open</button></main><script>
document.getElementById("open").onclick = () => {
  const d = document.createElement("div");
  d.setAttribute("role", "dialog");
  d.setAttribute("aria-label", "A question");
  d.innerHTML = "<p>Sure?</p><button>Confirm</button>";
  document.body.append(d);
};
</script></body></html>`;
  const server = createServer((req, res) => {
    if (req.url !== "/home") return res.writeHead(404).end();
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(home);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  try {
    const fixture = join(fileURLToPath(new URL(".", import.meta.url)), "journeys.fixture.mjs");
    const out = await new Promise((resolve) =>
      execFile(
        process.execPath,
        ["--test", "--test-reporter=spec", fixture],
        { env: childEnv({ CONSOLE_URL: `http://127.0.0.1:${server.address().port}` }), timeout: 240_000 },
        (err, stdout, stderr) => resolve({ code: err?.code ?? 0, text: stdout + stderr }),
      ),
    );
    const line = (mark, name) => new RegExp(`${mark} ${name.replace(/[()]/g, "\\$&")} \\(`).test(out.text);
    assert.ok(line("✖", "fails with a dialog open and a second context"), out.text);
    assert.ok(line("✔", "starts with no dialog, one context, the page marked"), out.text);
    assert.ok(line("✖", "passes its own steps but leaves a dialog open"), out.text);
    assert.match(out.text, /passes its own steps but leaves a dialog open: a dialog is left open/);
    assert.ok(line("✔", "starts clean after that too"), out.text);
    assert.match(out.text, /ℹ pass 2\b/);
    assert.match(out.text, /ℹ fail 2\b/);
    assert.notEqual(out.code, 0);
  } finally {
    server.close();
  }
});
