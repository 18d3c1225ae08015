// Where the closest targets of issue 18 spend their time: `npx tsx bench/where-time-goes.ts` after `npm run build`.
// 1. A 20-request turn with read-only tools, in process: CPU profiles of 30 turns through the built package and of 30 turns
//    of the bare streaming loop sending the same request, by where the code lives (miniclaw, the SDK, Node's fetch, zod,
//    the scripted server, GC, idle), per round.
// 2. The same turns without the profiler, split at the scripted server: the server's part of a round and the client's,
//    for miniclaw and three bare loops (one tool and no system prompt; miniclaw's request; miniclaw's request streamed).
// 3. The first memory search of a new process at 10,000 notes with the index file: each step timed alone in a new process.
import { execFile } from "node:child_process";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { mkdtemp, rm } from "node:fs/promises";
import { Session, type Profiler } from "node:inspector";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { loadBuiltLibrary } from "./built-library.js";
import { LOOP_ROUNDS as ROUNDS, openHarnessLoops, type HarnessLoops } from "./harness.js";
import { writeNotes } from "./memory-search.js";
import { median } from "./stats.js";

const TURNS = 30;
/** Untimed turns of each loop first, in the split below. */
const WARMUP_TURNS = 10;

/** Which part of the process a profile sample belongs to, by the file of its innermost frame. */
function areaOf(url: string, name: string): string {
  // The package bundles the SDK and zod with miniclaw's own code (dist/pkg), so a sample there is any of the three.
  if (url.includes("/dist/pkg/")) return "miniclaw (with the SDK and zod it bundles)";
  if (url.includes("/@anthropic-ai/sdk/")) return "Anthropic SDK";
  if (url.includes("/src/testing/")) return "scripted server";
  if (url.includes("/zod/")) return "zod";
  if (url.includes("undici")) return "Node's fetch (undici)";
  if (name === "(garbage collector)") return "garbage collection";
  if (name === "(idle)") return "idle (waiting on I/O)";
  if (url.startsWith("node:")) return "Node's own JavaScript";
  return "native calls and V8";
}

/** Runs `work` under the CPU profiler; resolves to its wall time and the profile's time by area, in milliseconds. */
async function profiled(work: () => Promise<void>): Promise<{ wallMs: number; areas: Map<string, number> }> {
  const session = new Session();
  session.connect();
  const post = <T>(method: string): Promise<T> => new Promise((resolve, reject) => session.post(method, (error, result) => (error ? reject(error) : resolve(result as T))));
  await post("Profiler.enable");
  await post("Profiler.start");
  const started = performance.now();
  await work();
  const wallMs = performance.now() - started;
  const { profile } = await post<{ profile: Profiler.Profile }>("Profiler.stop");
  session.disconnect();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const areas = new Map<string, number>();
  (profile.samples ?? []).forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    const area = areaOf(frame.url, frame.functionName);
    areas.set(area, (areas.get(area) ?? 0) + (profile.timeDeltas?.[i] ?? 0) / 1000);
  });
  return { wallMs, areas };
}

async function profileTurns(loops: HarnessLoops): Promise<void> {
  for (let i = 0; i < 5; i++) await loops.miniclaw();
  for (let i = 0; i < 5; i++) await loops.bareSame();
  const mini = await profiled(async () => {
    for (let i = 0; i < TURNS; i++) await loops.miniclaw();
  });
  const base = await profiled(async () => {
    for (let i = 0; i < TURNS; i++) await loops.bareSame();
  });
  const rounds = TURNS * ROUNDS;
  const per = (ms: number | undefined): string => `${((ms ?? 0) / rounds).toFixed(3)} ms`.padStart(10);
  process.stdout.write(`A ${ROUNDS}-request turn with read-only tools, ${TURNS} turns each under the CPU profiler, the scripted server in this process:
`);
  process.stdout.write(`  ${"per round".padEnd(24)} ${"miniclaw".padStart(10)} ${"bare loop, same request".padStart(24)}
`);
  process.stdout.write(`  ${"wall time".padEnd(24)} ${per(mini.wallMs)} ${per(base.wallMs).padStart(24)}
`);
  const names = [...new Set([...mini.areas.keys(), ...base.areas.keys()])].sort((a, b) => (mini.areas.get(b) ?? 0) - (mini.areas.get(a) ?? 0));
  for (const name of names) process.stdout.write(`  ${name.padEnd(24)} ${per(mini.areas.get(name))} ${per(base.areas.get(name)).padStart(24)}
`);
}

/**
 * Times each request at the scripted server through Node's HTTP diagnostics channels: the server's part runs
 * from the request's head to the response's end, the client's from there to the next request's head (reading
 * the response, running the tool, storing, building and sending the next request). The server runs in this
 * process, so both parts share its cores, as in the bench.
 */
async function splitRounds(loops: HarnessLoops): Promise<void> {
  const marks: Array<{ head: number; end: number }> = [];
  const onStart = (): void => void marks.push({ head: performance.now(), end: Number.NaN });
  const onFinish = (): void => {
    const last = marks.at(-1);
    if (last) last.end = performance.now();
  };
  try {
    const names = { bare: "bare loop, one tool", bareSameCreate: "bare loop, miniclaw's request", bareSame: "the same, streamed", miniclaw: "miniclaw" } as const;
    const parts = Object.fromEntries(Object.keys(names).map((name) => [name, { server: [] as number[], client: [] as number[] }])) as Record<keyof typeof names, { server: number[]; client: number[] }>;
    subscribe("http.server.request.start", onStart);
    subscribe("http.server.response.finish", onFinish);
    for (let turn = 0; turn < WARMUP_TURNS + TURNS; turn++) {
      for (const name of Object.keys(names) as Array<keyof typeof names>) {
        const from = marks.length;
        await loops[name]();
        if (turn < WARMUP_TURNS) continue;
        const own = marks.slice(from);
        own.forEach((mark, i) => {
          parts[name].server.push(mark.end - mark.head);
          const next = own[i + 1];
          if (next) parts[name].client.push(next.head - mark.end);
        });
      }
    }
    process.stdout.write(`\nThe same turns without the profiler, ${TURNS} each taking turns after ${WARMUP_TURNS} untimed, split at the scripted server (medians per request):\n`);
    process.stdout.write(`  ${"".padEnd(32)} ${"server".padStart(9)} ${"client".padStart(9)} ${"sum".padStart(9)}\n`);
    for (const name of Object.keys(names) as Array<keyof typeof names>) {
      const server = median(parts[name].server);
      const client = median(parts[name].client);
      const cell = (value: number): string => `${value.toFixed(3)} ms`.padStart(9);
      process.stdout.write(`  ${names[name].padEnd(32)} ${cell(server)} ${cell(client)} ${cell(server + client)}\n`);
    }
  } finally {
    unsubscribe("http.server.request.start", onStart);
    unsubscribe("http.server.response.finish", onFinish);
  }
}

// Run in a new process, as the bench's first search is: each step of the first search alone, then the whole of it.
const FIRST_SEARCH_PARTS = `
  const { readdirSync, readFileSync, statSync } = await import("node:fs");
  const { gunzipSync } = await import("node:zlib");
  const { decodeIndex, inflateOptions } = await import(process.env.INDEX_MODULE);
  const { MemoryStore } = await import(process.env.STORE_MODULE);
  const dir = process.env.MEMORY_DIR;
  const time = (f) => { const t = performance.now(); f(); return performance.now() - t; };
  let packed, bytes;
  const parts = {
    "stat of every note": time(() => { for (const name of readdirSync(dir)) statSync(dir + "/" + name); }),
    "reading the index file": time(() => { packed = readFileSync(dir + "/.search-index"); }),
    // As the store does: one output chunk of the size gzip's trailer gives.
    "inflating it (on the thread pool in a search)": time(() => { bytes = gunzipSync(packed, inflateOptions(packed)); }),
    "checking and decoding it": time(() => decodeIndex(bytes, (name) => name.endsWith(".md"))),
  };
  const started = performance.now();
  const store = new MemoryStore(dir);
  await store.search("kelvora");
  parts["the whole first search, in the same process after the steps above"] = performance.now() - started;
  store.close();
  process.stdout.write(JSON.stringify(parts));
`;

async function firstSearchParts(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "miniclaw-where-memory-"));
  try {
    await writeNotes(dir, 10_000);
    const { MemoryStore } = await import("../src/memory/store.js");
    const store = new MemoryStore(dir);
    await store.search("kelvora");
    await store.flush();
    store.close();
    const env = { ...process.env, MEMORY_DIR: dir, INDEX_MODULE: new URL("../src/memory/index-file.ts", import.meta.url).href, STORE_MODULE: new URL("../src/memory/store.ts", import.meta.url).href };
    process.stdout.write("\nThe first memory search of a new process, 10,000 notes, index file present (3 new processes):\n");
    for (let run = 1; run <= 3; run++) {
      const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", FIRST_SEARCH_PARTS], { env, maxBuffer: 1 << 20 });
      const parts = JSON.parse(stdout) as Record<string, number>;
      process.stdout.write(`  run ${run}: ${Object.entries(parts).map(([part, ms]) => `${part} ${ms.toFixed(0)} ms`).join("; ")}\n`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const loops = await openHarnessLoops(await loadBuiltLibrary());
try {
  await profileTurns(loops);
  await splitRounds(loops);
} finally {
  await loops.close();
}
await firstSearchParts();
