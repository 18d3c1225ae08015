// Two processes and two in-process callers hammering one session, the approvals file and the memory folder at once:
// nothing interleaves, nothing is lost, no file is left half-written.
import { mkdir, readFile, readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RuntimeOptions } from "../../src/runtime/open-runtime.js";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { MemoryStore } from "../../src/memory/store.js";
import { addApprovals } from "../../src/gate/approval-entries.js";
import { SessionStore } from "../../src/sessions/store.js";
import { startScriptedModel, type RecordedRequest } from "../../src/testing/index.js";
import type { MessageParam } from "../../src/types.js";
import { TEST_AGENT, tempWorkspace, turnOptions } from "../helpers/turn.js";
import { startChild } from "./child.js";
import { completeRecords, nextRequestError } from "./session-audit.js";
import { nextRequestProblems } from "../helpers/session-validity.js";

const KEY = "agent:main:hammered";
const ROUNDS = 3;
const FILLER = "x".repeat(20_000);
const PROCESSES = ["proc1", "proc2"];
const CALLERS = ["call1", "call2"];
const WRITERS = [...PROCESSES, ...CALLERS];
let writes = 0;
afterAll(() => console.info(`[reliability] concurrent writes checked: ${writes}`));

/** The last `mkdir -p made-<tag>-<n>` the model asked for in a request. */
function lastMade(req: RecordedRequest): string {
  const text = JSON.stringify(req.body.messages);
  const all = [...text.matchAll(/made-(\w+)-(\d+)/g)];
  const last = all.at(-1);
  return last ? `${last[1]} turn ${last[2]}` : "?";
}

/** The "<tag> turn <n>" a message belongs to, from its text or command. */
function label(message: MessageParam): string | undefined {
  const text = JSON.stringify(message.content);
  const turn = /(?:hammer|done) (\w+ turn \d+)/.exec(text);
  if (turn) return turn[1];
  const made = /made-(\w+)-(\d+)/.exec(text);
  return made ? `${made[1]} turn ${made[2]}` : undefined;
}

/** The in-process twin of tests/fixtures/reliability/hammer.mjs. */
async function hammerInProcess(workspace: string, options: ReturnType<typeof turnOptions>, tag: string, memory: MemoryStore): Promise<void> {
  const store = new SessionStore(join(workspace, "sessions"), { lockTimeoutMs: 120_000 });
  const turns = async (): Promise<void> => {
    for (let n = 0; n < ROUNDS; n++) {
      const result = await runAgentTurn(KEY, `hammer ${tag} turn ${n}`, TEST_AGENT, { ...options, runtime: { ...(options.runtime as RuntimeOptions), store, memory } });
      expect(result.stopReason, result.error).toBe("end_turn");
    }
  };
  const approvals = async (): Promise<void> => {
    for (let i = 0; i < ROUNDS * 5; i++) await addApprovals(join(workspace, "exec-approvals.json"), { allowed: [`echo ${tag}-${i}`] });
  };
  const notes = async (): Promise<void> => {
    for (let i = 0; i < ROUNDS * 5; i++) {
      await memory.save(`${tag}-${i}`, `note ${tag} ${i} ${FILLER}`);
      await memory.save("shared", `shared by ${tag} version ${i} ${FILLER}`);
    }
  };
  await Promise.all([turns(), approvals(), notes()]);
}

describe("two processes and two in-process callers at once", () => {
  it("leave whole turns, every approval and every note, and no half-written file", async () => {
    const model = await startScriptedModel([
      { match: { toolResult: { name: "run_command" } }, reply: (req) => `done ${lastMade(req)}` },
      {
        match: /^hammer \w+ turn \d+$/,
        reply: (req) => {
          const [, tag, n] = /^hammer (\w+) turn (\d+)$/.exec(JSON.stringify(req.body.messages!.at(-1)!.content).match(/hammer \w+ turn \d+/)![0])!;
          return { toolUses: [{ name: "run_command", input: { command: `mkdir -p made-${tag}-${n}` } }] };
        },
      },
    ]);
    try {
      const workspace = await tempWorkspace();
      const cwd = join(workspace, "cwd");
      await mkdir(cwd);
      const children = PROCESSES.map((tag) => startChild("hammer.mjs", [workspace, model.baseURL, tag, String(ROUNDS)]));
      const memory = MemoryStore.forWorkspace(workspace);
      const options = turnOptions(model, workspace, [], { cwd, builtinTools: true, tools: [], memory, approver: async () => "allow_always" });
      await Promise.all(CALLERS.map((tag) => hammerInProcess(workspace, options, tag, memory)));
      memory.close();
      const exits = await Promise.all(children.map((child) => child.exited));
      expect(exits.map((e) => [e.code, e.stderr])).toEqual(PROCESSES.map(() => [0, ""]));
      expect(model.rejected.map((r) => r.error)).toEqual([]);

      // The session: every turn whole and in one piece, none lost, none twice.
      const text = await readFile(new SessionStore(join(workspace, "sessions")).fileFor(KEY), "utf8");
      const { records, broken } = completeRecords(text);
      expect(broken).toBe(0);
      const session = await new SessionStore(join(workspace, "sessions")).load(KEY, { mode: "read" });
      expect(session.warnings).toEqual([]);
      expect(session.records.filter((r) => r.synthetic)).toEqual([]);
      expect(session.messages).toHaveLength(WRITERS.length * ROUNDS * 4);
      const turns: string[] = [];
      for (let i = 0; i < session.messages.length; i += 4) {
        const group = session.messages.slice(i, i + 4);
        expect(group.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
        const labels = [group[0]!, group[1]!, group[3]!].map(label);
        expect(new Set(labels).size, JSON.stringify(labels)).toBe(1);
        turns.push(labels[0]!);
      }
      expect(turns.sort()).toEqual(WRITERS.flatMap((tag) => Array.from({ length: ROUNDS }, (_, n) => `${tag} turn ${n}`)).sort());
      expect(nextRequestProblems(session.messages)).toEqual([]);
      expect(nextRequestError(session.messages)).toBeNull();
      expect(records.filter((r) => r.type === "message")).toHaveLength(WRITERS.length * ROUNDS * 4);
      for (const tag of WRITERS) for (let n = 0; n < ROUNDS; n++) expect((await stat(join(cwd, `made-${tag}-${n}`))).isDirectory()).toBe(true);

      // The approvals file: whole JSON holding every command approved by any writer, through the gate or directly.
      const approvals = JSON.parse(await readFile(join(workspace, "exec-approvals.json"), "utf8")) as { allowed: string[]; denied: string[] };
      const expected = WRITERS.flatMap((tag) => [
        ...Array.from({ length: ROUNDS * 5 }, (_, i) => `echo ${tag}-${i}`),
        ...Array.from({ length: ROUNDS }, (_, n) => `mkdir -p made-${tag}-${n}`),
      ]);
      expect([...approvals.allowed].sort()).toEqual([...expected].sort());
      expect(approvals.denied).toEqual([]);

      // The memory folder: each note exactly one written version, no temporary file left behind.
      const names = await readdir(join(workspace, "memory"));
      const own = WRITERS.flatMap((tag) => Array.from({ length: ROUNDS * 5 }, (_, i) => `${tag}-${i}.md`));
      expect(names.sort()).toEqual([...own, "shared.md"].sort());
      for (const tag of WRITERS) {
        for (let i = 0; i < ROUNDS * 5; i++) expect(await readFile(join(workspace, "memory", `${tag}-${i}.md`), "utf8")).toBe(`note ${tag} ${i} ${FILLER}`);
      }
      const shared = await readFile(join(workspace, "memory", "shared.md"), "utf8");
      const version = /^shared by (\w+) version (\d+) /.exec(shared);
      expect(version).not.toBeNull();
      expect(shared).toBe(`shared by ${version![1]} version ${version![2]} ${FILLER}`);
      expect(WRITERS).toContain(version![1]);

      // No other file of the workspace is left half-written or behind: no lock, no temporary file.
      const sessionFiles = await readdir(join(workspace, "sessions"));
      expect(sessionFiles).toEqual([basename(new SessionStore(workspace).fileFor(KEY))]);
      expect((await readdir(workspace)).filter((name) => !["cwd", "sessions", "memory", "exec-approvals.json"].includes(name))).toEqual([]);
      writes += WRITERS.length * ROUNDS * (4 + 5 + 10);
    } finally {
      await model.close();
    }
  }, 120_000);
});
