// One cold load of the admin console in Chromium, for `make bench`
// (deploy/cmd/bench, console.go): the gzipped script the first load fetches
// (as sent: Content-Length of each .js with Accept-Encoding gzip) and the time
// from navigation start to the payout queue on screen. Prints one JSON line.
import { chromium } from "playwright-core";

const env = (n) => {
  const v = process.env[n];
  if (!v) throw new Error(`${n} is not set: run through make bench`);
  return v;
};
const args = ["--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"];
if (process.getuid?.() === 0) args.push("--no-sandbox");
const browser = await chromium.launch({ executablePath: env("CHROMIUM"), headless: true, args });
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  let scriptBytes = 0;
  let scripts = 0;
  const sizes = [];
  page.on("response", (r) => {
    if (!r.url().endsWith(".js")) return;
    scripts++;
    sizes.push(r.allHeaders().then((h) => (scriptBytes += Number(h["content-length"] ?? 0))));
  });
  await page.goto(`${env("CONSOLE_URL")}/admin/payouts#token=${env("ADMIN_TOKEN")}`);
  // Checked at every frame in the page, so the time is the page's own.
  const shown = await page.waitForFunction(() => document.querySelector("[data-testid=payout-queue], [data-testid=payouts-empty]") && performance.now(), null, {
    timeout: 60_000,
    polling: "raf",
  });
  const firstQueueMs = await shown.jsonValue();
  await Promise.all(sizes);
  console.log(JSON.stringify({ scriptBytes, scripts, firstQueueMs }));
} finally {
  await browser.close();
}
