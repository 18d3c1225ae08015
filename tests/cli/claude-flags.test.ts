// What a Claude Code user types: --allowed-tools and --disallowed-tools (Claude Code's names too), --append-system-prompt, --max-budget-usd, and /model in the REPL.
import { access, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it, type TestContext } from "vitest";
import { parseCliArgs } from "../../src/cli/args.js";
import { ConfigError } from "../../src/errors.js";
import { startScriptedModel, type RecordedRequest, type Rule } from "../../src/testing/index.js";
import { cleanEnv, runCli, runMain, startMain } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

const RULES: Rule[] = [
  { match: { toolResult: {} }, reply: "said: {{tool_result}}" },
  { match: /touch it/, reply: { toolUses: [{ name: "run_command", input: { command: "touch made.txt" } }] } },
  { match: /read the notes/, reply: { toolUses: [{ name: "read_file", input: { path: "notes.txt" } }] } },
  { match: /list it/, reply: { toolUses: [{ name: "run_command", input: { command: "ls" } }] } },
  { match: /expensive/, reply: { toolUses: [{ name: "run_command", input: { command: "ls" } }], outputTokens: 200_000 } },
  { reply: "I heard: {{user_text}}" },
];

async function setup(ctx: TestContext) {
  const model = await startScriptedModel(RULES);
  ctx.onTestFinished(async () => {
    ctx.expect(model.rejected).toEqual([]);
    await model.close();
  });
  const dir = await tempDir("miniclaw-flags-");
  const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x", MINICLAW_WORKSPACE: join(dir, "ws"), MINICLAW_SANDBOX: "off" });
  const run = (...args: string[]) => runMain(["run", ...args], { env, cwd: dir });
  return { model, dir, env, run };
}

const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);
const systemOf = (request: RecordedRequest | undefined): string => JSON.stringify(request?.body.system ?? "");
const refusal = (argv: string[]): string => {
  try {
    parseCliArgs(argv);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return "(accepted)";
};

describe.concurrent("--allowed-tools and --disallowed-tools", () => {
  it("take Claude Code's names and Bash(...) patterns, comma or space separated, in either spelling", ({ expect }) => {
    expect(parseCliArgs(["run", "--allowed-tools", "Read,Edit Bash(git log:*)", "--allowedTools", "Bash(npm test) mcp__github__*", "x"]).approvals).toEqual({
      allowed: ["read_file", "edit_file", "git log *", "npm test", "mcp__github__*"],
      denied: [],
    });
    expect(parseCliArgs(["--disallowed-tools", "Bash(rm:*), WebSearch"]).approvals).toEqual({ allowed: [], denied: ["rm *", "web_search"] });
    // Reads run unasked already, so Claude Code's Grep or Glob allowed ask for nothing.
    expect(parseCliArgs(["--allowed-tools", "Grep,Glob,LS"]).approvals).toEqual({ allowed: [], denied: [] });
  });

  it("refuse with one line what they cannot honour", ({ expect }) => {
    expect(refusal(["--allowed-tools", "Bash"])).toBe('--allowed-tools Bash would approve every command: name commands, e.g. "Bash(git log:*)", or use --permission-mode bypassPermissions');
    expect(refusal(["--allowed-tools", "Bash(rm:*)"])).toBe("--allowed-tools Bash(rm:*): it approves every use of rm; name a narrower command");
    expect(refusal(["--allowed-tools", "Read(./src/**)"])).toBe("--allowed-tools Read(./src/**): only Bash takes a pattern here (file tools already work unasked inside the working folder and workspace); name Read alone");
    expect(refusal(["--disallowed-tools", "Grep"])).toBe('--disallowed-tools Grep: miniclaw has no such tool (searches and listings run through run_command: deny a command with "Bash(grep:*)")');
    expect(refusal(["--allowed-tools", "read.file"])).toBe("--allowed-tools read.file: not a tool name or Bash(command pattern)");
    expect(refusal(["cron", "--allowed-tools", "Read"])).toBe("--allowed-tools goes with the REPL and miniclaw run");
  });

  it("an allowed Bash(...) command runs unasked in miniclaw run, where nobody could approve it (the binary)", async (ctx) => {
    const t = await setup(ctx);
    const asked = await runCli(["run", "touch it"], { env: t.env, cwd: t.dir });
    ctx.expect(asked.stdout).toMatch(/^said: Error: .*needs? .*approv/);
    ctx.expect(await exists(join(t.dir, "made.txt"))).toBe(false);
    const allowed = await runCli(["run", "--allowed-tools", "Bash(touch made.txt)", "touch it"], { env: t.env, cwd: t.dir });
    ctx.expect(allowed.code, allowed.stderr).toBe(0);
    ctx.expect(allowed.stdout).toMatch(/^said: exit code: 0/);
    ctx.expect(await exists(join(t.dir, "made.txt"))).toBe(true);
  });

  it("a disallowed tool or command is refused, even one that would run unasked (Read, Bash(ls:*))", async (ctx) => {
    const t = await setup(ctx);
    await writeFile(join(t.dir, "notes.txt"), "tea at four");
    ctx.expect((await t.run("read the notes")).stdout).toMatch(/^said: +1\ttea at four\n$/);
    ctx.expect((await t.run("--disallowed-tools", "Read", "read the notes")).stdout).toMatch(/^said: Error: .*denied list/);
    ctx.expect((await t.run("list it")).stdout).toMatch(/^said: exit code: 0/);
    ctx.expect((await t.run("--disallowedTools", "Bash(ls:*)", "list it")).stdout).toMatch(/^said: Error: .*denied list/);
  });
});

describe.concurrent("--append-system-prompt and --max-budget-usd", () => {
  it("--append-system-prompt ends every agent's system prompt with the text", async (ctx) => {
    const t = await setup(ctx);
    ctx.expect((await t.run("--append-system-prompt", "Answer in French.", "hello")).code).toBe(0);
    ctx.expect(systemOf(t.model.requests[0])).toMatch(/You are Jarvis[\s\S]*\\n\\nAnswer in French\./);
    ctx.expect((await t.run("--append-system-prompt", "Answer in French.", "/research hello")).code).toBe(0);
    ctx.expect(systemOf(t.model.requests[1])).toMatch(/You are Scout[\s\S]*Answer in French\./);
    ctx.expect((await t.run("hello")).code).toBe(0);
    ctx.expect(systemOf(t.model.requests[2])).not.toContain("French");
  });

  it("--max-budget-usd stops the turn once its cost passes the budget: no further request, exit 1 with the reason", async (ctx) => {
    const t = await setup(ctx);
    const spent = await t.run("--max-budget-usd", "0.50", "expensive work");
    ctx.expect(spent.code).toBe(1);
    ctx.expect(spent.stderr).toMatch(/miniclaw: budget_exceeded: the turn's estimated cost \$\d+\.\d+ passed its budget of \$0\.5\n$/);
    ctx.expect(t.model.requests).toHaveLength(1);
    ctx.expect(refusal(["run", "--max-budget-usd", "lots", "x"])).toBe('--max-budget-usd must be a positive number of dollars, such as 0.50, got "lots"');
  });
});

describe.concurrent("/model in the REPL", () => {
  it("shows the model and where it comes from, switches it for the next messages, and goes back with /model default", async (ctx) => {
    const t = await setup(ctx);
    const repl = startMain([], { env: { ...t.env, MINICLAW_MODEL: "claude-test-env" }, cwd: t.dir, terminal: true });
    const say = async (line: string, pattern: RegExp): Promise<void> => {
      const mark = repl.screen.output().length;
      repl.type(`${line}\r`);
      await repl.screen.waitFor(pattern, { from: mark });
    };
    await repl.screen.waitFor(/Jarvis› $/);
    await say("/model", /Model: claude-test-env \(from MINICLAW_MODEL\)\. \/model ID switches for the next messages\.\n/);
    await say("/model claude-opus-4-1", /Model: claude-opus-4-1 from the next message until the REPL ends \(\/model default goes back to claude-test-env\)\.\n/);
    await say("hello", /I heard: hello[\s\S]*Jarvis› $/);
    await say("/model", /Model: claude-opus-4-1 \(set by \/model; \/model default goes back to claude-test-env\)\./);
    await say("/model not a model", /\/model not a model: not a model id \(such as claude-opus-4-1\)\. Usage: \/model \[ID\|default\]\n/);
    await say("/model default", /Model: back to claude-test-env \(from MINICLAW_MODEL\)\./);
    await say("again", /I heard: again[\s\S]*Jarvis› $/);
    ctx.expect(t.model.requests.map((r) => r.body.model)).toEqual(["claude-opus-4-1", "claude-test-env"]);
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
  });
});
