// Child of the PostgreSQL load bench (bench/pg-load.ts): real turns with runAgentTurn, one tool round each, in files or in PostgreSQL.
// argv: a JSON object { baseURL, workspace, url?, schema?, keys, turns, lanes, tag }: `keys` are run `lanes` at a time, each
// key's `turns` turns one after another ("<tag> turn <n>"). Opens everything and prints "ready", waits for a line on stdin, runs,
// prints one JSON line { turnMs: [...] } and exits.
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { createClient, defineTool, openRuntime, runAgentTurn } from "../dist/index.js";
import { openPostgres } from "../dist/postgres/index.js";

const job = JSON.parse(process.argv[2]);
const agent = { id: "main", name: "Worker", prompt: "You are a worker." };
const client = createClient({ env: { ANTHROPIC_BASE_URL: job.baseURL, ANTHROPIC_API_KEY: "bench" }, maxRetries: 0 });
const note = defineTool({ name: "note", description: "Notes a text.", input: z.object({ text: z.string() }), readOnly: true, run: ({ text }) => `noted ${text}` });
// A hot session queues turns from every process: a wait long enough that none gives up.
const postgres = job.url ? await openPostgres({ url: job.url, schema: job.schema }, { lockTimeoutMs: 120_000 }) : undefined;
const runtime = await openRuntime({ workspace: job.workspace, cwd: job.workspace, client, builtinTools: false, includeTime: false, ...(postgres && { store: postgres.sessions }) });
const options = { runtime, model: "claude-test-1", tools: [note] };
const turnMs = [];

async function turn(key, text) {
  const started = performance.now();
  const result = await runAgentTurn(key, text, agent, options);
  if (result.stopReason !== "end_turn") throw new Error(`${key}: "${text}" ended with ${result.stopReason}: ${result.error}`);
  turnMs.push(performance.now() - started);
}

process.stdout.write("ready\n");
const lines = createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once("line", resolve));
lines.close();
const queue = [...job.keys];
async function lane() {
  for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
    for (let n = 0; n < job.turns; n++) await turn(key, `${job.tag} turn ${n}`);
  }
}
await Promise.all(Array.from({ length: job.lanes }, lane));
process.stdout.write(`${JSON.stringify({ turnMs })}\n`);
await postgres?.close();
