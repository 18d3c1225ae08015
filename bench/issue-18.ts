// Issue 18's process and gate rows alone, in one to two minutes: `npx tsx bench/issue-18.ts [--runs N] [--no-gate]` after `npm run build`; the table on stdout, the raw figures with `--json`.
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { loadBuiltLibrary } from "./built-library.js";
import { benchGate } from "./gate.js";
import { benchProcessRuns, PROCESS_RUNS } from "./process-runs.js";
import { gateRows, processRunRows } from "./report-18.js";
import { describeMachine, formatTable, machineLine } from "./table.js";

const { values } = parseArgs({
  options: { runs: { type: "string", default: String(PROCESS_RUNS) }, "no-gate": { type: "boolean", default: false }, json: { type: "boolean", default: false } },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs takes a whole number of runs, not ${values.runs}`);

const machine = describeMachine();
const started = performance.now();
const processRuns = await benchProcessRuns(await loadBuiltLibrary(), { runs });
const gate = values["no-gate"] ? undefined : await benchGate();
const rows = [...processRunRows(processRuns), ...(gate ? gateRows(gate) : [])];
const endLoad = (loadavg()[0] ?? 0).toFixed(1);
process.stdout.write(`${machineLine(machine)} At the end: ${endLoad}. ${((performance.now() - started) / 1000).toFixed(1)} s.\n\n${formatTable(rows)}\n`);
if (values.json) process.stdout.write(`${JSON.stringify({ machine, processRuns, gate }, null, 2)}\n`);
