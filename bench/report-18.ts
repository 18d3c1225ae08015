// The rows of issue 18: whole processes running run_command (miniclaw run and the library beside the bare shell loop), and the gate's rate and slowest call.
import type { SandboxBench } from "./sandbox.js";
import type { GateBench } from "./gate.js";
import type { HarnessRuns, ProcessRunsBench } from "./process-runs.js";
import { ratio, verdict, type Row } from "./table.js";

const ms = (value: number): string => `${value.toFixed(1)} ms`;
const mb = (value: number): string => `${value.toFixed(1)} MB`;
const WHO = { miniclaw: "miniclaw run", library: "library script" } as const;

/** A row of a figure against the bare loop's, with a ratio target. */
function vsBare(measurement: string, value: number, base: number, unit: (v: number) => string, limit: number | undefined): Row {
  const target = limit === undefined ? "" : `≤ ${limit.toFixed(Math.max(1, String(limit).split(".")[1]?.length ?? 0))}×`;
  const holds = limit === undefined ? "" : verdict(value / base <= limit);
  return { measurement, miniclaw: unit(value), baseline: `${unit(base)} bare loop`, ratio: ratio(value, base), target, verdict: holds };
}

/** The rows of one figure for miniclaw run and the library script; `how` is said on the first only. */
function bothRows(p: ProcessRunsBench, name: string, figure: (h: HarnessRuns) => number, unit: (v: number) => string, limits: [number | undefined, number | undefined], how = ""): Row[] {
  const bare = figure(p.harnesses.bare);
  return [
    vsBare(`${name}: ${WHO.miniclaw}${how}`, figure(p.harnesses.miniclaw), bare, unit, limits[0]),
    vsBare(`${name}: ${WHO.library}`, figure(p.harnesses.library), bare, unit, limits[1]),
  ];
}

/** The exit tail's row: a target in milliseconds over the bare loop's, its long-turn figure in brackets. */
function tailRow(p: ProcessRunsBench, harness: "miniclaw" | "library", limitMs: number | undefined): Row {
  const own = p.harnesses[harness];
  const bare = p.harnesses.bare;
  return {
    measurement: `Exit tail, ${p.shortRounds} round (${p.longRounds} in brackets), the final response sent → exit: ${WHO[harness]}`,
    miniclaw: `${ms(own.short.tailMs)} (${ms(own.long.tailMs)})`,
    baseline: `${ms(bare.short.tailMs)} (${ms(bare.long.tailMs)}) bare loop`,
    ratio: ratio(own.short.tailMs, bare.short.tailMs),
    target: limitMs === undefined ? "" : `≤ bare + ${limitMs} ms`,
    verdict: limitMs === undefined ? "" : verdict(own.short.tailMs - bare.short.tailMs <= limitMs),
  };
}

/**
 * The whole-process rows: `node bin/miniclaw.js run` and `node bench/library-run.mjs`
 * (runAgentTurn of dist/ with its defaults) against `node bench/bare-shell-loop.mjs`, each
 * turn N rounds of run_command `echo hi K` then a text, against the scripted model.
 */
export function processRunRows(p: ProcessRunsBench): Row[] {
  const how = ` (median of ${p.runs} runs each, the five interleaved; bare loop: @anthropic-ai/sdk messages.create, ${p.bareShell}; miniclaw's sandbox off, as the bare loop has none: see the sandbox rows)`;
  const extra = p.longRounds - p.shortRounds;
  const { miniclaw, library, bareStream } = p.harnesses;
  return [
    ...bothRows(p, `Whole process, ${p.shortRounds} round of run_command \`echo hi\`, spawn → exit`, (h) => h.short.wholeMs, ms, [1.1, 1.15], how),
    ...bothRows(p, `Whole process, ${p.longRounds} rounds of run_command, spawn → exit`, (h) => h.long.wholeMs, ms, [1.1, 1.15]),
    vsBare(`Whole process, ${p.shortRounds} round of run_command, spawn → exit: ${WHO.miniclaw} with its sandbox on (bubblewrap, as users run it)`, p.harnesses.miniclawSandboxed.short.wholeMs, p.harnesses.bare.short.wholeMs, ms, 1.0),
    vsBare(`Whole process, ${p.longRounds} rounds of run_command, spawn → exit: ${WHO.miniclaw} with its sandbox on`, p.harnesses.miniclawSandboxed.long.wholeMs, p.harnesses.bare.long.wholeMs, ms, undefined),
    tailRow(p, "miniclaw", 30),
    tailRow(p, "library", undefined),
    ...bothRows(p, `Per round with run_command, spawn → exit, (whole ${p.longRounds}-round run − whole ${p.shortRounds}-round run) / ${extra}: it also counts how the exit tail changes with a run's length`, (h) => h.perRoundWholeMs, ms, [1.2, 1.2]),
    ...bothRows(p, `Per round with run_command, the rounds alone: first request → final response, (${p.longRounds}-round run − ${p.shortRounds}-round run) / ${extra}`, (h) => h.perRoundMs, ms, [1.2, 1.2]),
    vsBare(`Per round with run_command, the rounds alone: the bare loop streaming its requests as miniclaw does (messages.stream)`, bareStream.perRoundMs, p.harnesses.bare.perRoundMs, ms, undefined),
    ...bothRows(p, `CPU per round with run_command, user + system of all threads at exit, (${p.longRounds} − ${p.shortRounds}) / ${extra}`, (h) => h.cpuPerRoundMs, ms, [undefined, undefined]),
    ...bothRows(p, `Peak RSS, ${p.longRounds + 1}-request turn with run_command (maxRSS at exit)`, (h) => h.long.maxRssMb, mb, [1.15, 1.15]),
    vsBare(`Spawn → first request, the ${p.shortRounds}-round runs: ${WHO.miniclaw}`, miniclaw.short.startMs, p.harnesses.bare.short.startMs, ms, 1.0),
    {
      measurement: `Spawn → first request, the ${p.shortRounds}-round runs: ${WHO.library} vs ${WHO.miniclaw}`,
      miniclaw: ms(library.short.startMs),
      baseline: `${ms(miniclaw.short.startMs)} miniclaw run`,
      ratio: ratio(library.short.startMs, miniclaw.short.startMs),
      target: "≤ 1.1×",
      verdict: verdict(library.short.startMs / miniclaw.short.startMs <= 1.1),
    },
  ];
}

const perSecond = (value: number): string => `${value.toLocaleString("en-US")} /s`;

/**
 * The gate's rows: its rate over the test corpus (as before) and over the mixed corpus, and the
 * slowest classification of the mixed corpus. The target holds on the command slowest by its own
 * median over the rounds. Beside it, the slowest single call, with the pauses a single call also
 * counts: the process's garbage collections (a scavenge stops it, whichever call is running) and
 * the machine's (the gaps a loop that only reads the clock sees).
 */
export function gateRows(g: GateBench): Row[] {
  const none = { baseline: "", ratio: "" };
  const m = g.mixed;
  const short = (command: string): string => JSON.stringify(command.length > 40 ? `${command.slice(0, 40)}…` : command);
  return [
    { measurement: `Gate, ${g.corpusSize}-command test corpus (median of ${g.rounds} rounds)`, miniclaw: perSecond(g.classificationsPerSecond), ...none, target: "", verdict: "" },
    {
      measurement: `Gate, ${m.corpusSize}-command mixed corpus: test corpus, everyday commands, agents' commands (median of ${m.rounds} rounds)`,
      miniclaw: perSecond(m.classificationsPerSecond),
      ...none,
      target: "≥ 15,000 /s",
      verdict: verdict(m.classificationsPerSecond >= 15_000),
    },
    {
      measurement: `Gate, slowest classification of the mixed corpus: the slowest command by its median over the ${m.rounds} rounds (p99 of every call)`,
      miniclaw: `${m.slowestMedianMs.toFixed(3)} ms ${short(m.slowestMedianCommand)} (p99 ${m.p99Ms.toFixed(3)} ms)`,
      ...none,
      target: "< 1 ms",
      verdict: verdict(m.slowestMedianMs < 1),
    },
    {
      measurement: `Gate, the slowest single call of the same ${m.calls.toLocaleString("en-US")} calls that no garbage collection overlapped (the slowest of all; the calls of 1 ms or more, those of them one of the ${m.collections} collections overlapped, the collections' median pause)`,
      miniclaw: `${m.slowestUnpausedMs.toFixed(3)} ms ${short(m.slowestUnpausedCommand)} (${m.slowestMs.toFixed(1)} ms; ${m.callsOver1Ms} calls, ${m.pausedOver1Ms} overlapped, ${m.collectionMedianMs.toFixed(2)} ms)`,
      ...none,
      target: "",
      verdict: "",
    },
    {
      measurement: "Gate, the machine's own pauses beside it: a loop that only reads the clock for 1 s in the same process, its longest gap no garbage collection overlapped (its gaps of 1 ms or more)",
      miniclaw: `${g.idleLoopMaxGapMs.toFixed(3)} ms (${g.idleLoopGapsOver1Ms})`,
      ...none,
      target: "",
      verdict: "",
    },
  ];
}

/** The sandbox's cost per command: `echo hi` under bubblewrap's two policies against plain `bash -c`. */
export function sandboxRows(s: SandboxBench): Row[] {
  if ("skipped" in s) return [{ measurement: "Sandbox per command", miniclaw: "skipped", baseline: s.skipped, ratio: "", target: "", verdict: "" }];
  const row = (policy: string, t: { median: number; p95: number }): Row => ({
    measurement: `Sandbox per command: \`echo hi\` under bubblewrap, ${policy} (median of 200, interleaved; p95)`,
    miniclaw: `${ms(t.median)} (p95 ${ms(t.p95)})`,
    baseline: `${ms(s.times.plain.median)} plain bash -c`,
    ratio: ratio(t.median, s.times.plain.median),
    target: "",
    verdict: "",
  });
  return [row("read-only (a command the gate proved read-only)", s.times.readOnly), row("confined (an approved command)", s.times.confined)];
}
