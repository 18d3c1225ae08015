import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nestUnderParents, type SessionListing } from "../../src/sessions/session-listing.js";
import { sessionFileName } from "../../src/sessions/session-path.js";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

const HOUR_MS = 3_600_000;
const T0 = Date.UTC(2026, 10, 28, 9, 0);

/** Writes a session file: its header (with `parent` for a subagent's) and one exchange at `ts`. */
async function writeSession(sessions: string, key: string, ts: number, parent?: { sessionKey: string; toolUseId: string }): Promise<void> {
  const agentId = /^agent:([^:]+):/.exec(key)?.[1] ?? "main";
  const lines = [
    { type: "session", version: 1, key, agentId, ts, ...(parent && { parent }) },
    { type: "message", id: `${key}-u`, ts, message: { role: "user", content: "task" } },
    { type: "message", id: `${key}-a`, ts, message: { role: "assistant", content: [{ type: "text", text: "done" }] } },
  ];
  await writeFile(join(sessions, sessionFileName(key)), lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
}

describe("miniclaw sessions with subagents", () => {
  it("lists each subagent's session indented under the session that started it, and shows its parent in its header", async () => {
    const dir = await tempDir("miniclaw-sessions-sub-");
    const ws = join(dir, "ws");
    const sessions = join(ws, "sessions");
    await mkdir(sessions, { recursive: true });
    await writeSession(sessions, "agent:main:main", T0 + 3 * HOUR_MS);
    await writeSession(sessions, "agent:researcher:sub-toolu_2", T0 + 2 * HOUR_MS, { sessionKey: "agent:main:main", toolUseId: "toolu_2" });
    await writeSession(sessions, "agent:researcher:sub-toolu_1", T0 + 1 * HOUR_MS, { sessionKey: "agent:main:main", toolUseId: "toolu_1" });
    await writeSession(sessions, "cron:digest", T0 + 4 * HOUR_MS);
    await writeSession(sessions, "agent:researcher:sub-toolu_9", T0, { sessionKey: "agent:main:gone", toolUseId: "toolu_9" });

    const list = await runMain(["sessions", "--workspace", ws], { env: cleanEnv(), cwd: dir });
    expect(list.code).toBe(0);
    expect(list.stdout.split("\n").map((line) => line.split(/ {2,}/).slice(0, 3).join(" | "))).toEqual([
      "KEY | AGENT | MESSAGES",
      "cron:digest | main | 2",
      "agent:main:main | main | 2",
      " | └ agent:researcher:sub-toolu_1 | researcher",
      " | └ agent:researcher:sub-toolu_2 | researcher",
      "agent:researcher:sub-toolu_9 | researcher | 2",
      "",
    ]);
    expect(list.stdout).toContain("\n  └ agent:researcher:sub-toolu_1  researcher  2 ");

    const show = await runMain(["sessions", "show", "agent:researcher:sub-toolu_1", "--workspace", ws], { env: cleanEnv(), cwd: dir });
    expect(show.stdout.split("\n")[0]).toBe("# session agent:researcher:sub-toolu_1 (agent researcher) started 2026-11-28 10:00 · subagent of agent:main:main (delegate call toolu_1)");
  });
});

describe("nestUnderParents", () => {
  const listing = (key: string, lastActivity: number, parent?: string): SessionListing => ({
    key,
    agentId: "main",
    messages: 0,
    estimatedTokens: 0,
    lastActivity,
    file: `${key}.jsonl`,
    ...(parent !== undefined && { parent: { sessionKey: parent, toolUseId: `call-${key}` } }),
  });

  it("keeps the parents' order, puts children oldest first under theirs, and lists flat a child of a child or of a missing session", () => {
    const nested = nestUnderParents([listing("b", 9), listing("c2", 8, "a"), listing("a", 7), listing("c1", 6, "a"), listing("g", 5, "c1"), listing("o", 4, "missing")]);
    expect(nested.map((l) => `${l.depth}:${l.key}`)).toEqual(["0:b", "0:a", "1:c1", "1:c2", "0:g", "0:o"]);
  });
});
