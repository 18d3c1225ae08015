// cron --record and cron run JOB --record: a job's runs recorded, replayed offline as the job now stands, a changed job caught.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCassette } from "../../src/testing/cassette.js";
import { cleanEnv, runMain, startCli } from "../helpers/cli.js";
import { scriptedModelPerTest } from "../helpers/turn.js";
import { tempDir } from "../helpers/temp-dir.js";

const scripted = scriptedModelPerTest();

/** A workspace (made from the templates by a first command) whose cron.json holds `jobs`. */
async function workspaceWith(jobs: object[]): Promise<{ dir: string; ws: string }> {
  const dir = await tempDir("miniclaw-cron-record-");
  const ws = join(dir, "ws");
  expect((await runMain(["init", ws], { env: cleanEnv(), cwd: dir })).code).toBe(0);
  await writeFile(join(ws, "cron.json"), JSON.stringify({ jobs }));
  return { dir, ws };
}

const LOGS = { name: "logs", schedule: "0 9 * * *", prompt: "Look at the logs and say what failed." };

describe("cron --record and miniclaw replay", () => {
  it("records cron run JOB with its job and time, replays it offline, and names the difference once the job's prompt changed", async () => {
    const model = await scripted([
      { match: { toolResult: {} }, reply: "Nothing failed." },
      { reply: { toolUses: [{ name: "run_command", input: { command: "ls" } }] } },
    ]);
    const { dir, ws } = await workspaceWith([LOGS]);
    const cassette = join(dir, "logs.jsonl");
    const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "sk-ant-recorded-key-0002" });
    // A first run leaves history in the job's session; the recorded second run goes on from it.
    expect((await runMain(["cron", "run", "logs", "--workspace", ws], { env, cwd: dir })).code).toBe(0);
    const recorded = await runMain(["cron", "run", "logs", "--workspace", ws, "--record", cassette], { env, cwd: dir });
    expect(recorded.code, recorded.stderr).toBe(0);
    const read = readCassette(cassette);
    expect(read.header.argv).toEqual(["cron", "run", "logs", "--workspace", ws]);
    expect(read.sessions.map((s) => s.key)).toEqual(["cron:logs"]);
    expect(read.turns).toHaveLength(1);
    expect(read.turns[0]).toMatchObject({ text: LOGS.prompt, sessionKey: "cron:logs", job: "logs" });
    expect(Date.parse(read.turns[0]!.at!)).toBeGreaterThan(Date.now() - 60_000);
    expect(read.turns[0]!.exchanges).toHaveLength(2);
    expect(await readFile(cassette, "utf8")).not.toContain("sk-ant-recorded-key-0002");

    const offline = cleanEnv({ ANTHROPIC_API_KEY: "sk-ant-recorded-key-0002" });
    const again = await runMain(["replay", cassette], { env: offline, cwd: dir });
    expect([again.code, again.stdout], again.stderr).toEqual([0, "replay: pass (1 turn, 2 requests)\n"]);
    expect(again.stderr).toContain("turn: logs ok");

    await writeFile(join(ws, "cron.json"), JSON.stringify({ jobs: [{ ...LOGS, prompt: "Look at the logs and list every warning." }] }));
    const changed = await runMain(["replay", cassette], { env: offline, cwd: dir });
    expect(changed.code).toBe(1);
    expect(changed.stdout).toMatch(/^replay: differs from the recording: request 1: request\.body\.messages\[\d+\]\.content.*recorded .*Look at the logs and say what failed/);
  });

  it("records the scheduler's runs of two jobs one after another, each marked with its job, and replays them all", async () => {
    const model = await scripted([{ reply: "Done." }]);
    const every = "*/1 * * * * *";
    const { dir, ws } = await workspaceWith([
      { name: "first", schedule: every, prompt: "First job: check the inbox." },
      { name: "second", schedule: every, prompt: "Second job: check the calendar." },
    ]);
    const cassette = join(dir, "cron.jsonl");
    const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" });
    const cron = startCli(["cron", "--workspace", ws, "--record", cassette], { env, cwd: dir });
    await expect.poll(() => (cron.stdout().match(/ ok /g) ?? []).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(4);
    cron.child.kill("SIGINT");
    expect(await cron.exited).toBe(0);
    const read = readCassette(cassette);
    expect(new Set(read.turns.map((t) => t.job))).toEqual(new Set(["first", "second"]));
    // Each run's one request follows its own mark: never another job's prompt under it.
    for (const turn of read.turns.filter((t) => t.exchanges.length > 0)) {
      expect(JSON.stringify(turn.exchanges[0]!.request.body)).toContain(turn.text);
    }
    const again = await runMain(["replay", cassette], { env: cleanEnv({ ANTHROPIC_API_KEY: "x" }), cwd: dir });
    expect(again.stdout, again.stderr).toMatch(/^replay: pass \(\d+ turns, \d+ requests\)\n$/);
  }, 30_000);

  it("refuses --record with cron list, in one line", async () => {
    const run = await runMain(["cron", "list", "--record", "x.jsonl"], { env: cleanEnv() });
    expect([run.code, run.stderr]).toEqual([1, "--record goes with miniclaw run, the REPL, miniclaw cron and cron run JOB\n"]);
  });
});
