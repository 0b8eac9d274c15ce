// Unit tests of the console's pure rules (run by web/console
// TestConsoleRules): each TypeScript module is compiled with the project's
// TypeScript (transpileModule, no bundler) and imported.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import ts from "typescript";

async function load(path) {
  const src = readFileSync(new URL(path, import.meta.url), "utf8");
  const js = ts.transpileModule(src, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  return import(`data:text/javascript;base64,${Buffer.from(js).toString("base64")}`);
}

const { MAX_BULK, allPicked, pickAll, pickOne, ticked } = await load("../src/admin/bulkPick.ts");
const ids = (n, from = 0) => Array.from({ length: n }, (_, i) => `p${i + from}`);

test("the bound is the server's 50", () => assert.equal(MAX_BULK, 50));

test("select all ticks at most 50 of 51, in the order shown", () => {
  const shown = ids(51);
  const all = pickAll(new Set(), shown, true);
  assert.equal(all.size, 50);
  assert.deepEqual(ticked(all, shown), ids(50));
  assert.equal(allPicked(all, shown), true);
});

test("select all keeps the rows already ticked and fills up to 50", () => {
  const shown = ids(60);
  const all = pickAll(new Set(["p59", "p58"]), shown, true);
  assert.equal(all.size, 50);
  assert.ok(all.has("p59") && all.has("p58"));
  assert.deepEqual(ticked(all, shown).slice(0, 48), ids(48));
});

test("select all ticks every row when fewer than 50 are shown; off ticks none", () => {
  const shown = ids(3);
  assert.deepEqual([...pickAll(new Set(), shown, true)], shown);
  assert.equal(pickAll(new Set(shown), shown, false).size, 0);
  assert.equal(allPicked(new Set(["p0"]), shown), false);
  assert.equal(allPicked(new Set(), []), false);
});

test("a 51st tick changes nothing; unticking one frees a place", () => {
  const shown = ids(51);
  const full = pickAll(new Set(), shown, true);
  const again = pickOne(full, shown, "p50", true);
  assert.equal(again.size, 50);
  assert.equal(again.has("p50"), false);
  const freed = pickOne(full, shown, "p0", false);
  assert.equal(pickOne(freed, shown, "p50", true).has("p50"), true);
});

test("ticks of rows no longer shown are dropped and never counted", () => {
  const hidden = new Set(ids(50, 100));
  const shown = ids(2);
  const one = pickOne(hidden, shown, "p0", true);
  assert.deepEqual([...one], ["p0"]);
  assert.equal(pickOne(new Set(), shown, "p9", true).size, 0);
});
