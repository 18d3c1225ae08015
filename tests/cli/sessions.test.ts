import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModel, type ScriptedModel } from "../../src/testing/index.js";
import { cleanEnv, runMain } from "../helpers/cli.js";

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
    const cli = (...args: string[]) => runMain([...args, "--workspace", ws], { env: cleanEnv(), cwd: dir });
    expect((await runMain(["run", "--workspace", ws, "--session", "agent:main:main", "first question"], { env, cwd: dir })).code).toBe(0);
    expect((await runMain(["run", "--workspace", ws, "--continue", "second question"], { env, cwd: dir })).code).toBe(0);

    const list = await cli("sessions");
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^KEY\s+AGENT\s+MESSAGES\s+TOKENS\s+LAST ACTIVITY\nagent:main:main\s+main\s+4\s+~\d+/);

    const show = await cli("sessions", "show", "agent:main:main");
    expect(show.stdout).toMatch(/user: first question[\s\S]*assistant: answer to first question[\s\S]*user: second question/);
    expect(show.stdout).toMatch(/2 responses · \d+ tokens in \([\d.]+% read from cache\) · \d+ tokens out · ~\$[\d.]+/);

    const firstAnswerId = /\[(\S+)\] assistant: answer to first/.exec(show.stdout)![1]!;
    const fork = await cli("sessions", "fork", "agent:main:main", "agent:main:branch", firstAnswerId);
    expect(fork.stdout).toMatch(/Forked agent:main:main into agent:main:branch \(2 messages\)/);
    const forked = await cli("sessions", "show", "agent:main:branch");
    expect(forked.stdout).toMatch(/first question/);
    expect(forked.stdout).not.toMatch(/second question/);

    const created = await cli("sessions", "new", "agent:main:empty");
    expect(created.code).toBe(0);
    const again = await cli("sessions", "new", "agent:main:empty");
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);

    const notAFolder = await runMain(["sessions", "--workspace", join(dir, "ws", "agents", "main", "SOUL.md")], { env: cleanEnv(), cwd: dir });
    expect(notAFolder.code).toBe(1);
    expect(notAFolder.stderr).toMatch(/is not a folder/);

    const missing = await cli("sessions", "show", "nope");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no session "nope"/);
  });
});
