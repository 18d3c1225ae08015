// run --record and miniclaw replay: a turn recorded through the CLI, replayed offline with nothing changed, and a changed SOUL.md caught.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { scriptedModelPerTest } from "../helpers/turn.js";
import { tempDir } from "../helpers/temp-dir.js";

const scripted = scriptedModelPerTest();

describe("run --record and miniclaw replay", () => {
  it("replays a recorded run with commands offline, then names the first difference once an agent's prompt changed", async () => {
    const model = await scripted([
      { match: { toolResult: {} }, reply: "The folder holds {{tool_result}}" },
      { reply: { toolUses: [{ name: "run_command", input: { command: "ls" } }] } },
    ]);
    const dir = await tempDir("miniclaw-replay-");
    await writeFile(join(dir, "notes.txt"), "n\n");
    const ws = join(dir, "ws");
    const cassette = join(dir, "turn.jsonl");
    const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "sk-ant-recorded-key-0001" });
    const run = await runMain(["run", "--workspace", ws, "--record", cassette, "what is here?"], { env, cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(await readFile(cassette, "utf8")).not.toContain("sk-ant-recorded-key-0001");

    const offline = cleanEnv({ ANTHROPIC_API_KEY: "sk-ant-recorded-key-0001" });
    const again = await runMain(["replay", cassette], { env: offline, cwd: dir });
    expect([again.code, again.stdout]).toEqual([0, "replay: pass (1 turn, 2 requests)\n"]);

    const soul = join(ws, "agents", "main", "SOUL.md");
    await writeFile(soul, (await readFile(soul, "utf8")).replace(/\n---\n/, "\n---\nAlways answer in French.\n"));
    const changed = await runMain(["replay", cassette], { env: offline, cwd: dir });
    expect(changed.code).toBe(1);
    expect(changed.stdout).toMatch(/^replay: differs from the recording: request 1: request\.body\.system\[0\]\.text: recorded /);
    expect((await runMain(["replay", cassette, "--tolerate", "system"], { env: offline, cwd: dir })).code).toBe(0);
  });

  it("refuses a file that is no cassette with one line", async () => {
    const dir = await tempDir("miniclaw-replay-");
    await writeFile(join(dir, "x.jsonl"), '{"hello": 1}\n');
    const run = await runMain(["replay", "x.jsonl"], { env: cleanEnv(), cwd: dir });
    expect([run.code, run.stderr]).toEqual([1, `${join(dir, "x.jsonl")}: not a miniclaw cassette (its first line names no "cassette" format)\n`]);
  });
});
