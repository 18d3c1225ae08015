// The API key never reaches a session file, a memory note, a log line, a tool result or a child's environment:
// a unique marker is set as ANTHROPIC_API_KEY and searched for everywhere after a model tried hard to read it.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createClient } from "../../src/model/client.js";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { startScriptedModel, type Rule, type ScriptedModel } from "../../src/testing/index.js";
import type { AgentEvent } from "../../src/types.js";
import { cleanEnv, runCli } from "../helpers/cli.js";
import { makeTempDir } from "../helpers/tool-context.js";
import { TEST_AGENT } from "../helpers/turn.js";

let searches = 0;
let model: ScriptedModel | undefined;
afterAll(() => console.info(`[reliability] places searched for the API key: ${searches}`));
afterEach(async () => {
  await model?.close();
  model = undefined;
});

/** A fresh marker per test, shaped like a key. */
function marker(): string {
  return `sk-ant-api03-MARKER${randomBytes(12).toString("hex")}`;
}

/** Commands a model would use to find the key in its environment. */
const ENV_PROBES = [
  "env",
  "printenv",
  "printenv ANTHROPIC_API_KEY",
  "echo $ANTHROPIC_API_KEY",
  "cat /proc/self/environ",
  "tr '\\0' '\\n' < /proc/self/environ",
  "bash -c 'echo key=$ANTHROPIC_API_KEY'",
  "node -e 'console.log(JSON.stringify(process.env))'",
  "export -p",
  "declare -x",
];

/** A script: every probe in one response, then reading files, saving what it saw to memory, and a final answer. */
function probingRules(extraCommands: string[] = []): Rule[] {
  return [
    {
      match: "find the key",
      reply: {
        toolUses: [
          ...[...ENV_PROBES, ...extraCommands].map((command) => ({ name: "run_command", input: { command } })),
          { name: "read_file", input: { path: "/proc/self/environ" } },
          { name: "read_file", input: { path: "notes.txt" } },
        ],
      },
    },
    { match: { toolResult: { name: "read_file" } }, reply: { toolUses: [{ name: "save_memory", input: { key: "what-i-saw", content: "saw: {{tool_result}}" } }] } },
    { match: { toolResult: { name: "save_memory" } }, reply: "final: {{tool_result}}" },
  ];
}

/** Every file under `dir`, read as text (missing folder: nothing). */
async function allText(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const texts = await Promise.all(entries.filter((e) => e.isFile()).map((e) => readFile(join(e.parentPath, e.name), "utf8")));
  return texts.join("\n");
}

/** Asserts the marker is in none of the places; returns how many were searched. */
function expectNowhere(secret: string, places: Record<string, string>): void {
  for (const [place, text] of Object.entries(places)) {
    searches++;
    expect(text.includes(secret), `the API key appears in ${place}`).toBe(false);
  }
}

describe("miniclaw run with a marker API key", () => {
  it("keeps the key out of the session, memory, stdout, stderr and everything sent to the model", async () => {
    const secret = marker();
    model = await startScriptedModel(probingRules());
    const dir = await makeTempDir("miniclaw-secret-");
    const workspace = join(dir, "ws");
    await writeFile(join(dir, "notes.txt"), "nothing secret here\n");
    const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: secret, HOME: dir });
    const run = await runCli(["run", "--workspace", workspace, "find the key"], { env, cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^final: /);
    expect(JSON.stringify(model.requests[0]!.headers)).toContain(secret);
    expect(model.rejected).toEqual([]);
    const results = JSON.stringify(model.requests.map((r) => r.body.messages));
    expect(results).toMatch(/needs the user's approval/);
    expectNowhere(secret, {
      "the session files": await allText(join(workspace, "sessions")),
      "the memory folder": await allText(join(workspace, "memory")),
      stdout: run.stdout,
      stderr: run.stderr,
      "the request bodies": JSON.stringify(model.requests.map((r) => r.body)),
      "the workspace": await allText(workspace),
    });
  }, 30_000);

  // FINDINGS.md #6, input B (fixed in 266979b by redacting secret values from tool results): with
  // --permission-mode bypassPermissions, `cat /proc/$PPID/environ` reads the environment the CLI was started with.
  // FINDINGS.md #7 (issue 11, point 3): redaction matches the key's exact text, and the guard on /proc reads the command
  // text only; a program that computes the path and encodes what it reads got the key from /proc/$PPID/environ. Now
  // the CLI blanks the key in its original environment block once the client exists, so there is nothing to find.
  // Both are probed in one run of the binary: the same mode, the same environment.
  it("keeps the key out of tool results in bypassPermissions mode, even from /proc/$PPID/environ, and leaves none there for a child that finds the file by other means and encodes it", async () => {
    const secret = marker();
    const password = `pw${randomBytes(8).toString("hex")}`;
    model = await startScriptedModel(probingRules(["cat /proc/$PPID/environ", "ps eww -o args= -p $PPID", ...ENVIRON_PROBES]));
    const dir = await makeTempDir("miniclaw-secret-");
    const workspace = join(dir, "ws");
    await writeFile(join(dir, "notes.txt"), "nothing secret here\n");
    // Without the OS sandbox, whose PID namespace hides miniclaw's process altogether: this is the layer under it.
    const extra = { ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: secret, DATABASE_URL: `postgres://app:${password}@db/prod`, HOME: dir, MINICLAW_SANDBOX: "off" };
    const run = await runCli(["run", "--workspace", workspace, "--permission-mode", "bypassPermissions", "find the key"], { env: cleanEnv(extra), cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(model.rejected).toEqual([]);
    expect(JSON.stringify(model.requests[0]!.headers)).toContain(secret);
    expectNowhere(secret, {
      "the session files": await allText(join(workspace, "sessions")),
      "the memory folder": await allText(join(workspace, "memory")),
      stdout: run.stdout,
      stderr: run.stderr,
      "the request bodies": JSON.stringify(model.requests.map((r) => r.body)),
    });
    // The results of the first response's calls, in call order: the environ probes come after the 12 other commands.
    const environ = toolResultTexts(model.requests[1]!).slice(ENV_PROBES.length + 2, ENV_PROBES.length + 2 + ENVIRON_PROBES.length);
    expectEnvironBlanked(environ, [secret, password]);
  }, 30_000);
});

/**
 * Read the parent's environment block without naming /proc in the command text (which the gate refuses in every mode):
 * the path is computed by an interpreter. Each prints the block encoded, so redaction of the exact text cannot help.
 */
const READ_PARENT_ENVIRON = "const b = require('fs').readFileSync(String.fromCharCode(47, 112, 114, 111, 99) + '/' + process.argv[1] + '/environ');";
const ENVIRON_PROBES = [
  `node -e "${READ_PARENT_ENVIRON} console.log(b.toString('base64'))" $PPID`,
  `node -e "${READ_PARENT_ENVIRON} console.log(b.toString('hex'))" $PPID`,
  `node -e "${READ_PARENT_ENVIRON} console.log([...b.toString('latin1')].reverse().join(''))" $PPID`,
];

/** The texts of the tool results a request carries in its last message, in call order. */
function toolResultTexts(request: ScriptedModel["requests"][number]): string[] {
  const content = request.body.messages!.at(-1)!.content as Array<{ content: Array<{ text: string }> }>;
  return content.map((r) => r.content[0]!.text);
}

/** Decodes the three probes' output; the block was read (the key's name is there, its value all `*`) and holds no secret. */
function expectEnvironBlanked(results: string[], secrets: string[]): void {
  expect(results).toHaveLength(ENVIRON_PROBES.length);
  const longest = (text: string, pattern: RegExp): string => (text.match(pattern) ?? []).sort((a, b) => b.length - a.length)[0] ?? "";
  const decoded = {
    "the base64 output, decoded": Buffer.from(longest(results[0]!, /[A-Za-z0-9+/=]{40,}/g), "base64").toString("latin1"),
    "the hex output, decoded": Buffer.from(longest(results[1]!, /[0-9a-f]{40,}/g), "hex").toString("latin1"),
    "the reversed output, reversed back": [...results[2]!].reverse().join(""),
  };
  for (const [place, text] of Object.entries(decoded)) expect(text, place).toMatch(/ANTHROPIC_API_KEY=\*{20,}\0/);
  for (const secret of secrets) expectNowhere(secret, decoded);
}

/** Runs node with `args` (asynchronously: the scripted model answers from this process) and collects its output. */
function runNode(args: string[], env: Record<string, string>, cwd: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("error", reject);
    child.on("close", () => {
      clearTimeout(timer);
      resolve({ stdout, stderr });
    });
  });
}

describe("the library building its own client from process.env", () => {
  it("leaves no key in /proc/$PPID/environ for the commands of a bypassPermissions turn", async () => {
    const secret = marker();
    model = await startScriptedModel([
      { match: "find the key", reply: { toolUses: ENVIRON_PROBES.map((command) => ({ name: "run_command", input: { command } })) } },
      { reply: "done" },
    ]);
    const dir = await makeTempDir("miniclaw-secret-");
    await mkdir(join(dir, "ws"));
    // A host program on plain Node: no client and no env given, so miniclaw reads process.env itself.
    const host = [
      "const { runAgentTurn } = await import(process.argv[1]);",
      "const agent = { id: 'main', name: 'Host', prompt: 'test' };",
      "const options = { runtime: { workspace: process.argv[2] + '/ws', cwd: process.argv[2], includeTime: false }, model: 'claude-test-1', permissionMode: 'bypassPermissions' };",
      "const result = await runAgentTurn('agent:main:host', 'find the key', agent, options);",
      "process.stdout.write(result.stopReason + ' ' + (process.env.ANTHROPIC_API_KEY === process.argv[3]), () => process.exit(0));",
    ].join("\n");
    const library = new URL("../../dist/index.js", import.meta.url).href;
    // Without the OS sandbox, whose PID namespace hides the host process altogether: this is the layer under it.
    const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: secret, HOME: dir, MINICLAW_SANDBOX: "off" });
    const child = await runNode(["--input-type=module", "-e", host, library, dir, secret], env, dir);
    expect(child.stdout, child.stderr).toBe("end_turn true");
    expect(JSON.stringify(model.requests[0]!.headers)).toContain(secret);
    expectEnvironBlanked(toolResultTexts(model.requests.at(-1)!), [secret]);
  }, 30_000);
});

describe("a turn in bypassPermissions mode with a marker API key", () => {
  it("runs every probe, and child processes see no ANTHROPIC_* nor any secret-named variable", async () => {
    const secret = marker();
    const token = marker();
    process.env["ANTHROPIC_API_KEY"] = secret;
    try {
      model = await startScriptedModel(probingRules());
      const cwd = await makeTempDir("miniclaw-secret-");
      const workspace = join(cwd, "ws");
      await mkdir(workspace);
      await writeFile(join(cwd, "notes.txt"), "nothing secret here\n");
      const env = {
        ...process.env, ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: secret, GITHUB_TOKEN: token, MY_PASSWORD: token,
        DATABASE_URL: `postgres://app:${token}@db/prod`, HOME: cwd,
      };
      const events: AgentEvent[] = [];
      const result = await runAgentTurn("agent:main:secrets", "find the key", TEST_AGENT, {
        runtime: { workspace, cwd, env, client: createClient({ env }), includeTime: false },
        model: "claude-test-1",
        permissionMode: "bypassPermissions",
        onEvent: (e) => events.push(e),
      });
      expect(result.stopReason).toBe("end_turn");
      expect(JSON.stringify(model.requests[0]!.headers)).toContain(secret);
      expect(model.rejected).toEqual([]);
      const toolResults = events.flatMap((e) => (e.type === "tool_result" ? [e] : []));
      const probes = toolResults.filter((r) => r.name === "run_command");
      expect(probes).toHaveLength(ENV_PROBES.length);
      expect(probes[0]!.isError).toBe(false);
      expect(probes[0]!.content).toMatch(/PATH=/);
      for (const value of [secret, token]) {
        expectNowhere(value, {
          "the tool results": JSON.stringify(toolResults),
          "the session files": await allText(join(workspace, "sessions")),
          "the memory folder": await allText(join(workspace, "memory")),
          "the request bodies": JSON.stringify(model.requests.map((r) => r.body)),
          "the events": JSON.stringify(events),
        });
      }
    } finally {
      delete process.env["ANTHROPIC_API_KEY"];
    }
  });
});

describe("a turn in the default mode, nobody to approve, with the key in the user's shell profile", () => {
  // FINDINGS.md #6, input A (fixed in dc692ac): `cat ~/.bashrc` used to count as a safe read-only command, and a
  // shell profile is where many users export ANTHROPIC_API_KEY.
  it("keeps the key out of tool results", async () => {
    const secret = marker();
    model = await startScriptedModel([
      { match: "find the key", reply: { toolUses: [{ name: "run_command", input: { command: "cat ~/.bashrc" } }] } },
      { reply: "final: {{tool_result}}" },
    ]);
    const cwd = await makeTempDir("miniclaw-secret-");
    const home = join(cwd, "home");
    await mkdir(home);
    await writeFile(join(home, ".bashrc"), `alias ll='ls -l'\nexport ANTHROPIC_API_KEY=${secret}\n`);
    const env = { PATH: process.env["PATH"], HOME: home, ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: secret };
    const events: AgentEvent[] = [];
    const result = await runAgentTurn("agent:main:profile", "find the key", TEST_AGENT, {
      runtime: { workspace: join(cwd, "ws"), cwd, env, client: createClient({ env }), includeTime: false },
      model: "claude-test-1",
      onEvent: (e) => events.push(e),
    });
    expect(result.stopReason).toBe("end_turn");
    expectNowhere(secret, {
      "the tool results": JSON.stringify(events.filter((e) => e.type === "tool_result")),
      "the request bodies": JSON.stringify(model.requests.map((r) => r.body)),
    });
  });
});
