// run_command over real child processes: the gate first, then exit codes, the timeout's group kill, capped output, a clean env.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ApprovalDecision } from "../../src/types.js";
import { ToolError } from "../../src/errors.js";
import { isReadOnlyCall } from "../../src/tools/define.js";
import { createRunCommandTool, scrubEnv } from "../../src/tools/run-command.js";
import { checkCommandSafety } from "../../src/permissions/safety.js";
import { buildToolContext } from "../helpers/tool-context.js";
import type { TestToolContext } from "../helpers/tool-context.js";

const tool = createRunCommandTool();

async function run(context: TestToolContext, command: string, runTool = tool): Promise<string> {
  return (await runTool.run({ command }, context)) as string;
}

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

/** Alive and not a zombie waiting to be reaped. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "";
  return !/^\d+ \(.*\) Z/.test(stat);
}

describe("run_command", () => {
  it("runs a safe command and reports the exit code and stdout", async () => {
    const context = await buildToolContext();
    expect(await run(context, "echo hello")).toBe("exit code: 0\n\nstdout:\nhello");
    expect(context.events).toEqual([]);
  });

  it("reports a non-zero exit code with stderr", async () => {
    const context = await buildToolContext();
    const out = await run(context, "ls ./does-not-exist");
    expect(out).toMatch(/^exit code: 2\n\nstderr:\n.*does-not-exist/);
  });

  it("runs in the working directory with stdin closed, so cat without a file ends at once", async () => {
    const context = await buildToolContext();
    writeFileSync(join(context.cwd, "marker.txt"), "here\n");
    const started = Date.now();
    expect(await run(context, "cat")).toBe("exit code: 0\n\n(no output)");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await run(context, "cat marker.txt")).toBe("exit code: 0\n\nstdout:\nhere");
  });

  it("refuses an unsafe command when nobody can approve it, and says so", async () => {
    const context = await buildToolContext();
    writeFileSync(join(context.cwd, "victim"), "x");
    const error = await failure(run(context, "ls; rm -rf victim"));
    expect(error.message).toContain("needs the user's approval");
    expect(error.message).toContain("nobody is here");
    expect(existsSync(join(context.cwd, "victim"))).toBe(true);
    expect(context.events).toEqual([
      { type: "approval", id: "toolu_test", command: "ls; rm -rf victim", decision: "unavailable", reason: "rm writes, moves or deletes files" },
    ]);
  });

  it("runs an unsafe command the approver allows", async () => {
    const decisions: ApprovalDecision[] = ["allow_once"];
    const context = await buildToolContext({ approver: async () => decisions.shift() ?? "deny_once" });
    writeFileSync(join(context.cwd, "victim"), "x");
    expect(await run(context, "rm victim")).toBe("exit code: 0\n\n(no output)");
    expect(existsSync(join(context.cwd, "victim"))).toBe(false);
  });

  it("kills the whole process group on timeout, grandchildren included", async () => {
    const context = await buildToolContext({ mode: "bypassPermissions" });
    const marker = `7${Math.floor(Math.random() * 1e6)}`;
    const quick = createRunCommandTool({ timeoutMs: 500 });
    const started = Date.now();
    const error = await failure(run(context, `sleep 100.${marker} & echo $!; sleep 100.${marker} & echo $!; echo $$; sleep 100.${marker}`, quick));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(error.message.split("\n")[0]).toBe("timed out after 0.5s; the process group was killed");
    const pids = [...error.message.matchAll(/^(\d+)$/gm)].map((m) => Number(m[1]));
    expect(pids).toHaveLength(3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(pids.filter(isAlive)).toEqual([]);
    const survivors = spawnSync("pgrep", ["-f", `sleep 100.${marker}`], { encoding: "utf8" }).stdout.trim();
    expect(survivors.split("\n").filter((pid) => pid !== "" && isAlive(Number(pid)))).toEqual([]);
  });

  it("does not hang when a background child keeps the output pipe open", async () => {
    const context = await buildToolContext({ mode: "bypassPermissions" });
    const started = Date.now();
    const out = await run(context, "sleep 100 & echo $!; echo started");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(out).toContain("started");
    expect(out).toContain("background processes still holding the output were killed");
    const pid = Number(/^(\d+)$/m.exec(out)?.[1]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isAlive(pid)).toBe(false);
  });

  it("stops on the abort signal", async () => {
    const context = await buildToolContext({ mode: "bypassPermissions" });
    setTimeout(() => context.controller.abort(), 200);
    const error = await failure(run(context, "sleep 100"));
    expect(error.message).toMatch(/^aborted; the process group was killed/);
  });

  it("caps long output, keeping head and tail and marking the cut", async () => {
    const context = await buildToolContext({ mode: "bypassPermissions" });
    const capped = createRunCommandTool({ maxOutputBytes: 1_000 });
    const out = await run(context, "seq 1 20000", capped);
    const total = Buffer.byteLength(Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join(""));
    expect(out.startsWith("exit code: 0\n\nstdout:\n1\n2\n3\n")).toBe(true);
    expect(out.endsWith("19999\n20000")).toBe(true);
    expect(out).toContain(`[... ${total - 1_000} bytes cut from the middle of this output ...]`);
    expect(out.length).toBeLessThan(1_200);
  });

  it("gives the child an environment without ANTHROPIC_* or secret-looking names", async () => {
    const parent = { ...process.env, ANTHROPIC_API_KEY: "sk-ant-test-secret", GITHUB_TOKEN: "ghp-secret", DB_PASSWORD: "pw-secret", KEEP_ME: "visible" };
    const context = await buildToolContext({ mode: "bypassPermissions", env: scrubEnv(parent) });
    const out = await run(context, "env");
    expect(out).toContain("KEEP_ME=visible");
    for (const secret of ["ANTHROPIC_API_KEY", "sk-ant-test-secret", "GITHUB_TOKEN", "ghp-secret", "DB_PASSWORD", "pw-secret"]) {
      expect(out).not.toContain(secret);
    }
  });

  it("is read-only exactly when the command is safe", async () => {
    await checkCommandSafety("ls");
    expect(isReadOnlyCall(tool, { command: "git status" })).toBe(true);
    expect(isReadOnlyCall(tool, { command: "git status; rm x" })).toBe(false);
  });
});

describe("scrubEnv", () => {
  it("removes ANTHROPIC_* and names with KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL", () => {
    const env = { ANTHROPIC_BASE_URL: "u", AWS_SECRET_ACCESS_KEY: "s", npm_token: "t", MY_CREDENTIALS: "c", PATH: "/bin", HOME: "/h" };
    expect(scrubEnv(env)).toEqual({ PATH: "/bin", HOME: "/h" });
  });
});
