// `npm run bench:pg`: the PostgreSQL load bench alone (issue 34), printed as a table and saved to bench/pg-load-results.json.
// MINICLAW_TEST_DATABASE_URL names the server (default the local trust-auth one); MINICLAW_BENCH_CRON_S the cron window (default 60).
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { benchPgLoad } from "./pg-load.js";
import { pgLoadRows } from "./report-pg-load.js";
import { describeMachine, formatTable, machineLine } from "./table.js";

const RESULTS = fileURLToPath(new URL("./pg-load-results.json", import.meta.url));
const url = process.env["MINICLAW_TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const cronSeconds = Number(process.env["MINICLAW_BENCH_CRON_S"] ?? 60);

const machine = describeMachine();
const bench = await benchPgLoad(url, cronSeconds);
process.stdout.write(`${machineLine(machine)}\n\n${formatTable(pgLoadRows(bench))}\n`);
await writeFile(RESULTS, `${JSON.stringify({ date: new Date().toISOString(), machine, ...bench }, null, 2)}\n`);
process.stderr.write(`bench: raw figures in ${RESULTS}\n`);
