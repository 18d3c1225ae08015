// Child of the turns bench (bench/turns-pg.ts): real turns on a session of its own, in files or in PostgreSQL, timed from a common start.
// argv: base URL, workspace, session key, turns, then the database URL and schema for PostgreSQL (none: files).
// Runs one untimed turn (imports, connections, the session's header), prints "ready", waits for a line on stdin,
// runs the timed turns, prints "done", and exits.
import { createInterface } from "node:readline";
import { z } from "zod";
import { createClient, defineTool, openRuntime, runAgentTurn } from "../dist/index.js";
import { openPostgres } from "../dist/postgres/index.js";

const [baseURL, workspace, key, turnsArg, url, schema] = process.argv.slice(2);
const agent = { id: "main", name: "Worker", prompt: "You are a worker." };
const client = createClient({ env: { ANTHROPIC_BASE_URL: baseURL, ANTHROPIC_API_KEY: "bench" }, maxRetries: 0 });
const note = defineTool({ name: "note", description: "Notes a text.", input: z.object({ text: z.string() }), readOnly: true, run: ({ text }) => `noted ${text}` });
// PostgreSQL as a library user opens it: once for the process, its sessions handed to every turn.
const store = url ? (await openPostgres({ url, schema })).sessions : undefined;
const runtime = await openRuntime({ workspace, cwd: workspace, client, builtinTools: false, includeTime: false, ...(store && { store }) });
const options = { runtime, model: "claude-test-1", tools: [note] };

async function turn(text) {
  const result = await runAgentTurn(key, text, agent, options);
  if (result.stopReason !== "end_turn") throw new Error(`${key}: "${text}" ended with ${result.stopReason}: ${result.error}`);
}

await turn("warm up");
process.stdout.write("ready\n");
const lines = createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once("line", resolve));
lines.close();
for (let n = 0; n < Number(turnsArg); n++) await turn(`work turn ${n}`);
process.stdout.write("done\n");
