// run_command: a shell command behind the gate, in its own process group, with a timeout, closed stdin and capped output.
import type { ChildProcess } from "node:child_process";
import { z } from "zod";
import { ToolError } from "../errors.js";
import { loadShellParser } from "../permissions/shell-parse.js";
import { checkCommandSafetySync } from "../permissions/safety.js";
import { defineTool } from "./define.js";
import type { Tool, ToolContext } from "./define.js";
import { OutputCapture, splitBudget } from "./run-command-output.js";

export const COMMAND_TIMEOUT_MS = 30_000;
export const MAX_COMMAND_OUTPUT_BYTES = 30_000;
/** After the shell exits, how long to wait for pipes held open by background children before killing them. */
const PIPE_GRACE_MS = 250;

/** Options of `createRunCommandTool`. */
export interface RunCommandOptions {
  timeoutMs?: number;
  maxOutputBytes?: number;
}

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

/**
 * A copy of `env` without `ANTHROPIC_*` and without any variable whose name
 * contains KEY, TOKEN, SECRET, PASSWORD, PASSWD or CREDENTIAL (any case):
 * what child processes of the agent may see.
 */
export function scrubEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !isSecretName(name)));
}

/** Whether an environment variable is one `scrubEnv` removes. */
export function isSecretName(name: string): boolean {
  return name.startsWith("ANTHROPIC_") || SECRET_NAME.test(name);
}

/**
 * The values of the secret variables of `env` (not URLs such as the base URL) long enough to redact
 * safely (8+ characters): tool results must never carry them to the model or the session.
 */
export function secretValues(env: Record<string, string | undefined>): string[] {
  return Object.entries(env).flatMap(([name, value]) =>
    value && value.length >= 8 && !name.endsWith("_URL") && isSecretName(name) ? [value] : [],
  );
}

/**
 * The run_command tool. Each call asks `context.permissions.checkCommand`
 * first; a refusal throws a ToolError carrying the gate's sentence for the
 * model. `readOnly` is true for commands the gate classifies as safe (false
 * until the shell parser has loaded, which creating the tool starts).
 */
export function createRunCommandTool(options: RunCommandOptions = {}): Tool<{ command: string }> {
  const timeoutMs = options.timeoutMs ?? COMMAND_TIMEOUT_MS;
  const maxOutputBytes = options.maxOutputBytes ?? MAX_COMMAND_OUTPUT_BYTES;
  loadShellParser().catch(() => undefined);
  return defineTool({
    name: "run_command",
    description:
      "Run a bash command in the working directory and return its exit code, stdout and stderr. " +
      `stdin is closed; the command is killed after ${formatSeconds(timeoutMs)}; long output keeps its head and tail. ` +
      "Read-only commands run at once; others may need the user's approval.",
    input: z.object({ command: z.string().min(1).describe("The command line, run with bash -c") }),
    readOnly: (input) => checkCommandSafetySync(input.command) === "safe",
    async run(input, context) {
      const gate = await context.permissions.checkCommand(input.command, context.toolUseId);
      if (!gate.allowed) throw new ToolError(gate.reason);
      const result = await runProcess(input.command, context, timeoutMs, maxOutputBytes);
      const text = formatResult(result, maxOutputBytes);
      if (result.timedOut) throw new ToolError(`timed out after ${formatSeconds(timeoutMs)}; the process group was killed\n${text}`);
      if (result.aborted) throw new ToolError(`aborted; the process group was killed\n${text}`);
      return text;
    },
  });
}

interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: OutputCapture;
  stderr: OutputCapture;
  timedOut: boolean;
  aborted: boolean;
  /** Background processes still holding the output pipes after the shell exited were killed. */
  leftoversKilled: boolean;
}

function runProcess(command: string, context: ToolContext, timeoutMs: number, maxOutputBytes: number): Promise<ProcessResult> {
  if (context.signal.aborted) throw new ToolError("aborted before the command started");
  const child = context.spawn("bash", ["-c", command], { cwd: context.cwd, env: context.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const result: ProcessResult = {
    exitCode: null, signal: null, stdout: new OutputCapture(maxOutputBytes), stderr: new OutputCapture(maxOutputBytes),
    timedOut: false, aborted: false, leftoversKilled: false,
  };
  child.stdout?.on("data", (chunk: Buffer) => result.stdout.push(chunk));
  child.stderr?.on("data", (chunk: Buffer) => result.stderr.push(chunk));
  return new Promise((resolve, reject) => {
    let grace: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      result.timedOut = true;
      killGroup(child);
    }, timeoutMs);
    const onAbort = (): void => {
      result.aborted = true;
      killGroup(child);
    };
    context.signal.addEventListener("abort", onAbort, { once: true });
    const finish = (): void => {
      clearTimeout(timer);
      clearTimeout(grace);
      context.signal.removeEventListener("abort", onAbort);
      resolve(result);
    };
    child.once("error", (error) => {
      clearTimeout(timer);
      context.signal.removeEventListener("abort", onAbort);
      reject(new ToolError(`could not start bash: ${error.message}`));
    });
    child.once("exit", (code, signal) => {
      result.exitCode = code;
      result.signal = signal;
      grace = setTimeout(() => {
        result.leftoversKilled = true;
        killGroup(child);
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      }, PIPE_GRACE_MS);
    });
    child.once("close", finish);
  });
}

/** SIGKILL to the whole process group (the shell was spawned detached, so it leads one). */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // The group is already gone.
  }
}

function formatResult(result: ProcessResult, maxOutputBytes: number): string {
  const status = result.signal !== null && !result.timedOut && !result.aborted ? `killed by ${result.signal}` : `exit code: ${result.exitCode ?? "none"}`;
  const budget = splitBudget(result.stdout.totalBytes, result.stderr.totalBytes, maxOutputBytes);
  const parts = [status];
  if (result.stdout.totalBytes > 0) parts.push(`stdout:\n${result.stdout.render(budget.stdout).trimEnd()}`);
  if (result.stderr.totalBytes > 0) parts.push(`stderr:\n${result.stderr.render(budget.stderr).trimEnd()}`);
  if (parts.length === 1) parts.push("(no output)");
  if (result.leftoversKilled) parts.push("(background processes still holding the output were killed when the command ended)");
  return parts.join("\n\n");
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}
