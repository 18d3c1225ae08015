import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModel, type ScriptedModel } from "../../src/testing/index.js";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

describe("miniclaw sessions", () => {
  it("lists, shows with usage and cost, forks up to a message, and creates sessions", async () => {
    model = await startScriptedModel([{ reply: "answer to {{user_text}}" }]);
    const dir = await tempDir("miniclaw-sessions-");
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

  it("shows thinking, web searches and a structured answer, and sums thinking tokens and searches with their price", async () => {
    model = await startScriptedModel([
      { match: "node 20", reply: { thinking: "Search the release notes.", serverTools: [{ search: "node 20 release", results: [{ url: "https://nodejs.org/v20", title: "Node v20" }] }], text: "April 2023." } },
      { reply: '{"year": 2023}' },
    ]);
    const dir = await tempDir("miniclaw-sessions-");
    const ws = join(dir, "ws");
    const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" });
    await writeFile(join(dir, "year.json"), JSON.stringify({ type: "object", properties: { year: { type: "integer" } }, required: ["year"] }));
    expect((await runMain(["run", "--workspace", ws, "--session", "agent:researcher:r", "/research when was node 20 released?"], { env, cwd: dir })).code).toBe(0);
    expect((await runMain(["run", "--workspace", ws, "--continue", "--output-schema", "year.json", "/research which year?"], { env, cwd: dir })).stdout).toBe('{"year":2023}\n');

    const show = await runMain(["sessions", "show", "agent:researcher:r", "--workspace", ws], { env: cleanEnv(), cwd: dir });
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/assistant: \[thinking\] Search the release notes\.\n→ web_search: "node 20 release"\n← 1 result\n1\. Node v20 — https:\/\/nodejs\.org\/v20\nApril 2023\./);
    expect(show.stdout).toMatch(/\{"year": 2023\}\noutput: \{"year":2023\}\n/);
    const all = await runMain(["sessions", "show", "agent:researcher:r", "--all", "--workspace", ws], { env: cleanEnv(), cwd: dir });
    expect(all.stdout).toMatch(/\{"year": 2023\}\noutput: \{"year":2023\}\n/);
    expect(show.stdout).toMatch(/2 responses · \d+ tokens in \([\d.]+% read from cache\) · \d+ tokens out \(\d+ thinking\) · 1 web search \(\$0\.01\) · ~\$[\d.]+\n$/);
    expect(model.rejected).toEqual([]);
  });
});
