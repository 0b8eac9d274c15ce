// The console's commission preview (src/admin/commission.ts) run outside the
// browser on the cases deploy/e2e TestConsoleCommissionPortMatchesServer
// writes (the configuration, the stores and the figures), printing the
// previews as JSON for the test to compare with getCommissionPreview's.
// TypeScript's own transpiler turns the module into JavaScript first.
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";

const source = readFileSync(new URL("../src/admin/commission.ts", import.meta.url), "utf8");
const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
const file = join(mkdtempSync(join(tmpdir(), "commission-")), "commission.mjs");
writeFileSync(file, js);
const { preview } = await import(pathToFileURL(file).href);

const { config, stores, cases } = JSON.parse(readFileSync(process.env.CASES, "utf8"));
const out = cases.map((c) => preview(config, stores[c.storeId], c.subtotal, c.deliveryFee));
process.stdout.write(JSON.stringify(out));
