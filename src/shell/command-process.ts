// One run_command child: bash in its own process group, under a memory limit, killed whole on timeout, abort or too much output,
// with the head and tail of its output.
import type { ChildProcess } from "node:child_process";
import { readdirSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { orFallback, ToolError } from "../errors.js";
import { processExists, procStatFields, signalGroup } from "../fs/proc.js";
import type { ToolContext } from "../tools/define.js";
import { spawnPlanned, type CommandPlan } from "./sandbox/sandbox-command.js";

/** After the shell exits, how long to wait for pipes held open by background children before killing them. */
const PIPE_GRACE_MS = 250;

/** Head and tail kept of each stream, data memory per process, output past which it is killed; `leaveNothingRunning` kills the group's rest. */
export interface ProcessLimits { timeoutMs: number; captureBytes: number; memoryBytes: number; outputBytes: number; leaveNothingRunning?: boolean }

/** How a command ended and what it printed; what was killed: too much output, processes holding the pipes, with `leaveNothingRunning` the rest. */
export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: OutputCapture;
  stderr: OutputCapture;
  timedOut: boolean;
  aborted: boolean;
  outputLimited: boolean;
  leftoversKilled: boolean;
  straysKilled: boolean;
}

/**
 * The line bash runs: the memory limit first, on the same line (line numbers stay the command's). Data, not address space: `ulimit -v`
 * breaks node, WebAssembly and JVMs, which reserve ranges they never use.
 */
export function limitedCommand(command: string, memoryBytes: number): string {
  return `ulimit -d ${Math.max(1, Math.floor(memoryBytes / 1024))} 2>/dev/null; ${command}`;
}

/** Runs a planned command; resolves when it and its pipes are done. Throws a ToolError when already aborted or it cannot start. */
export function runProcess(plan: CommandPlan, env: ToolContext["env"], context: ToolContext, limits: ProcessLimits): Promise<ProcessResult> {
  if (context.signal.aborted) throw new ToolError("aborted before the command started");
  const child = spawnPlanned(context.spawn, plan, { cwd: context.cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const result: ProcessResult = {
    exitCode: null, signal: null, stdout: new OutputCapture(limits.captureBytes), stderr: new OutputCapture(limits.captureBytes),
    timedOut: false, aborted: false, outputLimited: false, leftoversKilled: false, straysKilled: false,
  };
  const capture = (into: OutputCapture) => (chunk: Buffer): void => {
    into.push(chunk);
    if (!result.outputLimited && result.stdout.totalBytes + result.stderr.totalBytes > limits.outputBytes) {
      result.outputLimited = true;
      killGroup(child);
    }
  };
  child.stdout?.on("data", capture(result.stdout));
  child.stderr?.on("data", capture(result.stderr));
  return new Promise((resolve, reject) => watch(child, context.signal, limits, result, resolve, reject));
}

function watch(
  child: ChildProcess, signal: AbortSignal, limits: ProcessLimits, result: ProcessResult,
  resolve: (result: ProcessResult) => void, reject: (error: Error) => void,
): void {
  let grace: NodeJS.Timeout | undefined;
  let settled = false;
  const timer = setTimeout(() => {
    result.timedOut = true;
    killGroup(child);
  }, limits.timeoutMs);
  const onAbort = (): void => {
    result.aborted = true;
    killGroup(child);
  };
  signal.addEventListener("abort", onAbort, { once: true });
  const settle = (): boolean => {
    if (settled) return false;
    clearTimeout(timer);
    clearTimeout(grace);
    signal.removeEventListener("abort", onAbort);
    return (settled = true);
  };
  const finish = (): void => {
    if (!settle()) return;
    if (!limits.leaveNothingRunning || child.pid === undefined) return resolve(result);
    void killStrays(child.pid).then((killed) => {
      result.straysKilled = killed;
      resolve(result);
    });
  };
  child.once("error", (error) => {
    if (settle()) reject(new ToolError(`could not start the command: ${error.message}`));
  });
  child.once("exit", (code, exitSignal) => {
    result.exitCode = code;
    result.signal = exitSignal;
    grace = setTimeout(() => {
      result.leftoversKilled = true;
      killGroup(child);
      child.stdout?.destroy();
      child.stderr?.destroy();
      finish();
    }, PIPE_GRACE_MS);
  });
  child.once("close", finish);
}

/** SIGKILL to the whole process group (the shell was spawned detached, so it leads one). */
function killGroup(child: ChildProcess): void {
  if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
}

/** How long a member of an ended command's group may take to finish exiting before it counts as left running. */
const STRAY_GRACE_MS = 100;

/**
 * Kills what still runs of a group whose shell ended (a `sort` in `<(...)`): true when anything did. Zombies and members done exiting
 * within the grace (`sort` closes its output first) do not count.
 */
async function killStrays(pgid: number): Promise<boolean> {
  const deadline = Date.now() + STRAY_GRACE_MS;
  // /proc is scanned whole once, then only the members seen running are watched, then once more for what they started.
  let running = runningMembers(pgid);
  while (running.length > 0) {
    if (Date.now() >= deadline) {
      signalGroup(pgid, "SIGKILL");
      return true;
    }
    await sleep(5);
    running = running.filter((pid) => isRunningIn(pid, pgid));
    if (running.length === 0) running = runningMembers(pgid);
  }
  return false;
}

/** The members of the group that are not zombies, from /proc; without /proc the group itself stands for one. */
function runningMembers(pgid: number): number[] {
  if (!processExists(-pgid)) return [];
  const names = orFallback(() => readdirSync("/proc"), null);
  if (names === null) return [pgid];
  return names.map(Number).filter((pid) => Number.isInteger(pid) && isRunningIn(pid, pgid));
}

function isRunningIn(pid: number, pgid: number): boolean {
  const [state, , group] = procStatFields(pid) ?? [];
  return Number(group) === pgid && state !== "Z" && state !== "X";
}

/** Holds the first and last `limit` bytes of a stream, whatever its length, and how many bytes it has seen. */
export class OutputCapture {
  totalBytes = 0;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private readonly tail: Buffer[] = [];
  private tailBytes = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    if (this.headBytes < this.limit) {
      const part = chunk.subarray(0, this.limit - this.headBytes);
      this.head.push(part);
      this.headBytes += part.length;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tail.length > 1 && this.tailBytes - (this.tail[0] as Buffer).length >= this.limit) {
      this.tailBytes -= (this.tail.shift() as Buffer).length;
    }
  }

  /** The text within `budget` bytes (at most the limit): all of it, or the first and last halves around a marker of what was cut. */
  render(budget: number): string {
    const allowed = Math.min(budget, this.limit);
    if (this.totalBytes <= allowed) return Buffer.concat(this.head).subarray(0, this.totalBytes).toString("utf8");
    const half = Math.floor(allowed / 2);
    const first = Buffer.concat(this.head).subarray(0, half);
    const tail = Buffer.concat(this.tail);
    const last = tail.subarray(Math.max(0, tail.length - half));
    const cut = this.totalBytes - first.length - last.length;
    return `${first.toString("utf8")}\n\n[... ${cut} bytes cut from the middle of this output ...]\n\n${last.toString("utf8")}`;
  }
}
