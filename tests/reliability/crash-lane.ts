// One lane of the crash test: a turn runner process killed with SIGKILL again and again at chosen moments, the
// session audited after every kill.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { startScriptedModel, type RecordedRequest } from "../../src/testing/index.js";
import { TEST_AGENT, tempWorkspace, turnOptions } from "../helpers/turn.js";
import { seededRandom, sleep, startChild } from "./child.js";
import { auditSession, completeRecords, sessionFile } from "./session-audit.js";

/** When, in a turn runner's life, the kill lands. */
export type KillPoint = "stream" | "tool" | "append" | "compaction" | "anytime";
const KILL_POINTS: readonly KillPoint[] = ["stream", "tool", "append", "compaction", "anytime"];

/** What a lane did. */
export interface CrashLaneStats {
  kills: number;
  byPoint: Record<KillPoint, number>;
  /** Kill points whose moment never came within the wait (the kill then landed wherever the child was). */
  missed: number;
  /** Lines left torn or corrupt in the file by a kill. */
  tornLines: number;
  compactions: number;
  /** Turns the children completed before being killed. */
  turnsCompleted: number;
  requests: number;
}

const KEY = "agent:main:crash";
/** Longest wait for a kill point before killing anyway. */
const POINT_WAIT_MS = 2_500;
const STREAM_TEXT = "A reply streamed slowly, so that a kill can land in the middle of it. ".repeat(6).trim();

function isSummary(req: RecordedRequest): boolean {
  return JSON.stringify(req.body.system ?? "").includes("You summarise");
}

function lastUserText(req: RecordedRequest): string {
  const last = req.body.messages?.findLast((m) => m.role === "user");
  const content = last?.content;
  if (typeof content === "string") return content;
  return (content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("\n");
}

/**
 * Runs `kills` turn runner processes one after the other on one session, each
 * killed with SIGKILL at a random kill point (seeded by `seed`). After every kill:
 * the file only grew (nothing written was lost), the session loads, every complete
 * message record of its load region is in the loaded view, and the next request is
 * valid. At the end one more turn runs in this process, and the scripted model must
 * have rejected nothing.
 */
export async function runCrashLane(options: { kills: number; seed: number; compactAt?: number }): Promise<CrashLaneStats> {
  const random = seededRandom(options.seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const workspace = await tempWorkspace();
  const waiting = new Map<string, () => void>();
  const notify = (what: string): true => {
    waiting.get(what)?.();
    waiting.delete(what);
    return true;
  };
  const arm = (what: string): Promise<void> => new Promise((resolve) => waiting.set(what, resolve));
  let summaryDelay = 0;
  const model = await startScriptedModel([
    { match: (req) => isSummary(req) && notify("summary"), reply: async () => (await sleep(summaryDelay), "Summary: the user asked for many things.") },
    { match: { toolResult: { name: "slow" } }, reply: "tool done" },
    { match: (req) => lastUserText(req).includes("tool please"), reply: { toolUses: [{ name: "slow", input: { ms: 250 } }] } },
    { match: (req) => lastUserText(req).includes("stream please") && notify("stream"), reply: { text: STREAM_TEXT, delayMs: 5 } },
    { reply: "ok" },
  ]);
  const stats: CrashLaneStats = {
    kills: 0, byPoint: { stream: 0, tool: 0, append: 0, compaction: 0, anytime: 0 }, missed: 0, tornLines: 0, compactions: 0, turnsCompleted: 0, requests: 0,
  };
  const file = sessionFile(workspace, KEY);
  let before = "";
  // The next runner loads the library while the current one runs; it touches nothing before its order.
  let next = startChild("turn-runner.mjs", []);
  try {
    for (let k = 0; k < options.kills; k++) {
      const point = pick(KILL_POINTS);
      const firstKind = point === "stream" ? "stream" : point === "tool" ? "tool" : point === "append" ? "big" : pick(["plain", "tool", "stream"]);
      summaryDelay = Math.floor(random() * 30);
      const armed = point === "stream" ? arm("stream") : point === "compaction" ? arm("summary") : undefined;
      const child = next;
      const context = `seed ${options.seed}, kill ${k} at ${point}`;
      await child.waitFor("ready");
      child.send(JSON.stringify({ workspace, key: KEY, baseURL: model.baseURL, firstKind, compactAt: options.compactAt ?? 1 }));
      next = startChild("turn-runner.mjs", []);
      const moment =
        point === "tool" ? child.waitFor("tool_start") : point === "append" ? child.waitFor("turn_start big") : (armed ?? Promise.resolve());
      const reached = await Promise.race([moment.then(() => true, () => false), sleep(POINT_WAIT_MS).then(() => false)]);
      if (!reached) stats.missed++;
      const delay = { stream: 150, tool: 320, append: 6, compaction: 50, anytime: 500 }[point];
      await sleep(Math.floor(random() * delay));
      child.process.kill("SIGKILL");
      const exit = await child.exited;
      expect(exit.signal, `${context}: the turn runner died on its own: ${exit.stderr}`).toBe("SIGKILL");
      stats.kills++;
      stats.byPoint[point]++;
      const turnEnds = exit.stdout.split("\n").filter((line) => line.startsWith("turn_end"));
      stats.turnsCompleted += turnEnds.length;
      expect(turnEnds.filter((line) => !/^turn_end (end_turn|model_context_window_exceeded)$/.test(line)), context).toEqual([]);

      const after = await readFile(file, "utf8").catch(() => "");
      expect(after.startsWith(before), `${context}: the file lost bytes written before`).toBe(true);
      before = after;
      const audit = await auditSession(join(workspace, "sessions"), KEY);
      expect(audit.problems, context).toEqual([]);
      expect(audit.requestError, context).toBeNull();
      expect(audit.lost, `${context}: complete records missing from the loaded session`).toEqual([]);
      expect(model.rejected.map((r) => r.error), context).toEqual([]);
    }
    const final = await runAgentTurn(KEY, "final please", TEST_AGENT, turnOptions(model, workspace, [], { tools: [], compactAt: options.compactAt ?? 1 }));
    expect(final.stopReason, final.error).toBe("end_turn");
    const { records, broken } = completeRecords(await readFile(file, "utf8"));
    stats.tornLines = broken;
    stats.compactions = records.filter((r) => r.type === "compaction").length;
    expect(broken).toBeLessThanOrEqual(stats.kills);
    expect(model.rejected.map((r) => r.error)).toEqual([]);
    stats.requests = model.requests.length;
    return stats;
  } finally {
    next.process.kill("SIGKILL");
    await model.close();
  }
}
