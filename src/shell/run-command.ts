// run_command: a shell command judged by the command gate, sandboxed by its grant, with a timeout, memory and output limits, closed stdin and capped output.
import { homedir, tmpdir } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import * as z from "zod";
import { ToolError } from "../errors.js";
import { sandboxEnv, sandboxSupportFor } from "./child-sandbox.js";
import { returnScratch, takeScratch } from "./command-scratch.js";
import { limitedCommand, runProcess, type ProcessLimits, type ProcessResult } from "./command-process.js";
import { CommandSandbox, type CommandPlan } from "./sandbox/sandbox-command.js";
import { defineTool, type Grant, type Tool, type ToolContext } from "../tools/define.js";

/** How long a command may run before its process group is killed. */
export const COMMAND_TIMEOUT_MS = 30_000;
const MAX_COMMAND_OUTPUT_BYTES = 30_000;
/** Data memory of each process of a command: enough for compilers and test runners, not for a runaway. */
const COMMAND_MEMORY_LIMIT_BYTES = 4 * 1024 ** 3;
/** stdout and stderr together, past which the command is killed: only head and tail are kept anyway. */
const COMMAND_OUTPUT_LIMIT_BYTES = 64 * 1024 ** 2;

/**
 * Options of `createRunCommandTool`: the timeout, the head and tail of each stream the model sees (bytes), data memory per process
 * (`ulimit -d`, default 4 GiB), output past which the process group is killed (default 64 MiB).
 */
export interface RunCommandOptions {
  timeoutMs?: number;
  maxOutputBytes?: number;
  memoryLimitBytes?: number;
  outputLimitBytes?: number;
}

/** What an out-of-memory failure prints, from the C library, bash, coreutils, Python, C++ and node. */
const OUT_OF_MEMORY = /memory exhausted|cannot allocate|out of memory|MemoryError|bad_alloc|allocation failed/i;

/** The run_command tool: the gate judges the command before `run`, and the grant picks the sandbox (read-only, confined or approved). */
export function createRunCommandTool(options: RunCommandOptions = {}, sandbox: CommandSandbox = new CommandSandbox("off")): Tool<{ command: string }> {
  const limits: ProcessLimits = {
    timeoutMs: options.timeoutMs ?? COMMAND_TIMEOUT_MS,
    captureBytes: options.maxOutputBytes ?? MAX_COMMAND_OUTPUT_BYTES,
    memoryBytes: options.memoryLimitBytes ?? COMMAND_MEMORY_LIMIT_BYTES,
    outputBytes: options.outputLimitBytes ?? COMMAND_OUTPUT_LIMIT_BYTES,
  };
  const warned = new Set<string>();
  return defineTool({
    name: "run_command",
    description:
      "Run a bash command in the working directory and return its exit code, stdout and stderr. " +
      `stdin is closed; the command is killed after ${formatSeconds(limits.timeoutMs)}; long output keeps its head and tail. ` +
      "Read-only commands run at once; others may need the user's approval.",
    input: z.object({ command: z.string().min(1).describe("The command line, run with bash -c") }),
    access: (input) => ({ command: input.command }),
    async run(input, context) {
      // Only the gate's answer decides the sandbox; without one (run called directly) nothing runs.
      if (!context.grant) throw new ToolError("run_command runs only after the gate has judged the command (through runToolUses)");
      const result = await runSandboxed(input.command, context.grant, context, limits, sandbox, warned);
      const text = formatResult(result, limits);
      if (result.timedOut) throw new ToolError(`timed out after ${formatSeconds(limits.timeoutMs)}; the process group was killed\n${text}`);
      if (result.aborted) throw new ToolError(`aborted; the process group was killed\n${text}`);
      if (result.outputLimited) throw new ToolError(`the output passed ${formatBytes(limits.outputBytes)}; the process group was killed\n${text}`);
      return text;
    },
  });
}

/**
 * Runs the command in its grant's sandbox, with a TMPDIR of its own (no spill files left); a read-only one leaves nothing running, and
 * its folder, which a straggler may have written to, is not kept. What the sandbox cannot promise is said once.
 */
async function runSandboxed(command: string, grant: Grant, context: ToolContext, limits: ProcessLimits, sandbox: CommandSandbox, warned: Set<string>): Promise<ProcessResult> {
  const env = sandboxEnv(context.env, grant.readOnly, sandboxSupportFor(command));
  const limited = limitedCommand(command, limits.memoryBytes);
  const sandboxed = (await sandbox.probe()).available;
  if (!grant.readOnly && !sandboxed) return runProcess({ sandboxed: false, file: "bash", args: ["-c", limited], notice: null }, env, context, limits);
  const parent = env["TMPDIR"] || tmpdir();
  const scratch = takeScratch(parent);
  let result: ProcessResult;
  try {
    const kind = grant.readOnly ? "read-only" : grant.contained ? "confined" : "approved";
    const place = { cwd: context.cwd, workspace: context.workspace, tmpdir: scratch, home: env["HOME"] || homedir() };
    const start = async (): Promise<{ plan: CommandPlan; result: ProcessResult }> => {
      const plan = await sandbox.plan(limited, kind, place);
      for (const warning of plan.sandboxed ? plan.warnings : []) if (!warned.has(warning) && warned.add(warning)) context.emit({ type: "warning", message: `sandbox: ${warning}` });
      return { plan, result: await runProcess(plan, { ...env, TMPDIR: scratch }, context, { ...limits, leaveNothingRunning: grant.readOnly }) };
    };
    let run = await start();
    // A protected file replaced by rename while bwrap mounts over it fails the mount before the command starts: start it again, after a pause.
    for (let retry = 0; retry < 5 && run.plan.sandboxed && mountRaced(run.result); retry++) {
      await sleep(10 * 2 ** retry);
      run = await start();
    }
    result = run.result;
  } catch (error) {
    await returnScratch(parent, scratch, true);
    throw error;
  }
  await returnScratch(parent, scratch, !result.straysKilled);
  return result;
}

/** bwrap's own failure to mount, its one line of stderr before the command ran: nothing of the command happened. */
function mountRaced(result: ProcessResult): boolean {
  return result.exitCode === 1 && result.stdout.totalBytes === 0 && /^bwrap: Can't (bind mount|remount|mount) [^\n]*\n?$/.test(result.stderr.render(4096));
}

function formatResult(result: ProcessResult, limits: ProcessLimits): string {
  const killed = result.timedOut || result.aborted || result.outputLimited;
  const status = result.signal !== null && !killed ? `killed by ${result.signal}` : `exit code: ${result.exitCode ?? "none"}`;
  const budget = splitBudget(result.stdout.totalBytes, result.stderr.totalBytes, limits.captureBytes);
  const parts = [status];
  if (result.stdout.totalBytes > 0) parts.push(`stdout:\n${result.stdout.render(budget.stdout).trimEnd()}`);
  const stderr = result.stderr.totalBytes > 0 ? result.stderr.render(budget.stderr).trimEnd() : "";
  if (stderr) parts.push(`stderr:\n${stderr}`);
  if (parts.length === 1) parts.push("(no output)");
  if (result.leftoversKilled) parts.push("(background processes still holding the output were killed when the command ended)");
  if (result.straysKilled && !killed && !result.leftoversKilled) parts.push("(processes the command left running were killed when it ended: a read-only command leaves nothing behind)");
  if (result.exitCode !== 0 && OUT_OF_MEMORY.test(stderr)) {
    parts.push(`(the command ran out of memory: each of its processes may use at most ${formatBytes(limits.memoryBytes)} of data memory)`);
  }
  return parts.join("\n\n");
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}

/** Shares one byte budget between stdout and stderr: both whole when they fit, else stderr keeps at least a quarter (errors matter). */
function splitBudget(stdoutBytes: number, stderrBytes: number, budget: number): { stdout: number; stderr: number } {
  if (stdoutBytes + stderrBytes <= budget) return { stdout: stdoutBytes, stderr: stderrBytes };
  const stderr = Math.min(stderrBytes, Math.max(Math.floor(budget / 4), budget - stdoutBytes));
  return { stdout: budget - stderr, stderr };
}

/** A byte count for a person: whole GiB, MiB or KiB where it divides evenly, else bytes. */
function formatBytes(bytes: number): string {
  for (const [unit, size] of [["GiB", 1024 ** 3], ["MiB", 1024 ** 2], ["KiB", 1024]] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}
