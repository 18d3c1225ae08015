import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModel, type ScriptedModel } from "../../src/testing/index.js";
import { cleanEnv, runCli } from "../helpers/cli.js";

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

describe("miniclaw sessions", () => {
  it("lists, shows with usage and cost, forks up to a message, and creates sessions", async () => {
    model = await startScriptedModel([{ reply: "answer to {{user_text}}" }]);
    const dir = await mkdtemp(join(tmpdir(), "miniclaw-sessions-"));
    const ws = join(dir, "ws");
    const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" });
    for (const text of ["first question", "second question"]) expect((await runCli(["run", "--workspace", ws, text], { env, cwd: dir })).code).toBe(0);

    const list = await runCli(["sessions", "--workspace", ws], { env: cleanEnv(), cwd: dir });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^KEY\s+AGENT\s+MESSAGES\s+TOKENS\s+LAST ACTIVITY\nagent:main:main\s+main\s+4\s+~\d+/);

    const show = await runCli(["sessions", "show", "agent:main:main", "--workspace", ws], { env: cleanEnv(), cwd: dir });
    expect(show.stdout).toMatch(/user: first question[\s\S]*assistant: answer to first question[\s\S]*user: second question/);
    expect(show.stdout).toMatch(/2 responses · \d+ tokens in \([\d.]+% read from cache\) · \d+ tokens out · ~\$[\d.]+/);

    const firstAnswerId = /\[(\S+)\] assistant: answer to first/.exec(show.stdout)![1]!;
    const fork = await runCli(["sessions", "fork", "agent:main:main", "agent:main:branch", firstAnswerId, "--workspace", ws], { env: cleanEnv(), cwd: dir });
    expect(fork.stdout).toMatch(/Forked agent:main:main into agent:main:branch \(2 messages\)/);
    const forked = await runCli(["sessions", "show", "agent:main:branch", "--workspace", ws], { env: cleanEnv(), cwd: dir });
    expect(forked.stdout).toMatch(/first question/);
    expect(forked.stdout).not.toMatch(/second question/);

    const created = await runCli(["sessions", "new", "agent:main:empty", "--workspace", ws], { env: cleanEnv(), cwd: dir });
    expect(created.code).toBe(0);
    const again = await runCli(["sessions", "new", "agent:main:empty", "--workspace", ws], { env: cleanEnv(), cwd: dir });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);

    const notAFolder = await runCli(["sessions", "--workspace", join(dir, "ws", "agents", "main", "SOUL.md")], { env: cleanEnv(), cwd: dir });
    expect(notAFolder.code).toBe(1);
    expect(notAFolder.stderr).toMatch(/is not a folder/);

    const missing = await runCli(["sessions", "show", "nope", "--workspace", ws], { env: cleanEnv(), cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no session "nope"/);
  });
});
