// The MCP client transport over a server's stdin and stdout that leaves no process behind: the server leads its own process group, killed whole.
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { SdkError, SdkErrorCode, STDIO_DEFAULT_MAX_BUFFER_SIZE, serializeMessage, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";
import { LineReader, type LineItem } from "./line-reader.js";
import { nodeSpawnDefault, type Spawn } from "../deps.js";
import { MiniclawError } from "../errors.js";
import { registerGroup, unregisterGroup } from "./reaper.js";
import { signalGroup } from "../fs/proc.js";

/** How long `close()` waits after SIGTERM before it sends SIGKILL to the group. */
const KILL_GRACE_MS = 2_000;
/** How much of the end of the server's stderr is kept, for the warning when it fails to start. */
export const STDERR_TAIL_BYTES = 4_096;
/** After the server exits, how long to wait for its pipes to drain and close before giving up on them. */
const PIPE_GRACE_MS = 250;

/** What to run: the `command` form of an `mcp.json` entry; `env` is the server's whole environment, used as given. */
export interface StdioServerParams {
  command: string;
  args?: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  spawn?: Spawn;
  /** The largest message read whole; a longer one ends the request it answers with an error (default the SDK's 10 MiB). */
  maxMessageBytes?: number;
}

type ServerExit = { code: number | null; signal: NodeJS.Signals | null };

/**
 * A client `Transport` to a child process. Unlike the SDK's, the server leads its own process group, listed with the
 * reaper and killed whole on `close()` or when it exits. Its stderr is kept, never printed. `onclose` fires once; `start()` may be called once.
 */
export class StdioTransport implements Transport {
  onclose: Transport["onclose"];
  onerror: Transport["onerror"];
  onmessage: Transport["onmessage"];

  private child: ChildProcess | undefined;
  private readonly buffer: LineReader;
  private tail = Buffer.alloc(0);
  private exitStatus: ServerExit | undefined;
  private phase: "new" | "starting" | "running" | "failed" | "gone" = "new";
  private readonly gone: Promise<void>;
  private markGone!: () => void;

  constructor(private readonly params: StdioServerParams) {
    this.buffer = new LineReader(params.maxMessageBytes ?? STDIO_DEFAULT_MAX_BUFFER_SIZE);
    this.gone = new Promise((resolve) => (this.markGone = resolve));
  }

  /** Also the process group id. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Undefined while it runs or before it started. */
  get exit(): ServerExit | undefined {
    return this.exitStatus;
  }

  /** The last STDERR_TAIL_BYTES of stderr, for a warning saying why it failed. */
  get stderrTail(): string {
    return this.tail.toString("utf8");
  }

  /** Spawns the server; resolves once it runs, or rejects with a one-line MiniclawError naming the command and why it cannot start. */
  start(): Promise<void> {
    if (this.phase !== "new") return Promise.reject(new Error(`StdioTransport for "${this.params.command}" was already started`));
    this.phase = "starting";
    const { command, args = [], cwd } = this.params;
    const spawn = this.params.spawn ?? nodeSpawnDefault;
    const child = spawn(command, [...args], {
      ...(cwd === undefined ? {} : { cwd }),
      env: Object.fromEntries(Object.entries(this.params.env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
      shell: false,
    });
    this.child = child;
    this.listen(child);
    return new Promise((resolve, reject) => {
      child.once("spawn", () => {
        this.phase = "running";
        if (child.pid !== undefined) registerGroup(child.pid);
        resolve();
      });
      child.once("error", (error) => {
        if (this.phase !== "starting") return;
        this.phase = "failed";
        this.markGone();
        reject(spawnError(this.params, error));
      });
    });
  }

  /** Writes one message to the server's stdin; resolves once it is handed to the pipe. */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (this.phase !== "running" || !stdin?.writable) return Promise.reject(new SdkError(SdkErrorCode.NotConnected, "Not connected"));
    return new Promise((resolve, reject) => {
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  /** SIGTERM to the group, SIGKILL after KILL_GRACE_MS; resolves once `onclose` fired. Safe to call twice, before `start()` or after a failed one. */
  async close(): Promise<void> {
    const pid = this.child?.pid;
    if (pid === undefined || this.phase === "failed" || this.phase === "new") return;
    if (this.exitStatus === undefined) {
      this.child?.stdin?.end();
      signalGroup(pid, "SIGTERM");
    }
    const escalate = setTimeout(() => signalGroup(pid, "SIGKILL"), KILL_GRACE_MS);
    await this.gone;
    clearTimeout(escalate);
  }

  /** Wires the child's pipes and its end; pipe errors after the start are reported, never thrown. */
  private listen(child: ChildProcess): void {
    child.stdout?.on("data", (chunk: Buffer) => this.buffer.push(chunk).forEach((item) => this.deliver(item)));
    child.stderr?.on("data", (chunk: Buffer) => (this.tail = Buffer.from(Buffer.concat([this.tail, chunk]).subarray(-STDERR_TAIL_BYTES))));
    for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.on("error", (error) => this.onerror?.(error));
    child.on("error", (error) => {
      if (this.phase === "running") this.onerror?.(error);
    });
    child.once("exit", (code, signal) => this.exited(child, { code, signal }));
    child.once("close", () => this.finish());
  }

  /** A non-JSON-RPC line is reported and skipped, as by the SDK; one over the limit becomes an error answer, so only its call ends. */
  private deliver(item: LineItem): void {
    if ("message" in item) return this.onmessage?.(item.message);
    if ("error" in item) return this.onerror?.(item.error);
    const size = `${Math.round(item.oversized / 1024 / 1024)} MiB`;
    const limit = `${Math.round((this.params.maxMessageBytes ?? STDIO_DEFAULT_MAX_BUFFER_SIZE) / 1024 / 1024)} MiB`;
    const message = `the server's answer was about ${size}, over the ${limit} one message may take; it was dropped`;
    if (item.id === undefined) return this.onerror?.(new Error(message));
    this.onmessage?.({ jsonrpc: "2.0", id: item.id, error: { code: -32000, message } });
  }

  /** Kills what is left of the group, since nothing else would; the pipes get a grace, as an escaped child could hold them open for ever. */
  private exited(child: ChildProcess, status: ServerExit): void {
    this.exitStatus = status;
    if (child.pid === undefined) return;
    signalGroup(child.pid, "SIGKILL");
    unregisterGroup(child.pid);
    setTimeout(() => this.finish(), PIPE_GRACE_MS).unref();
  }

  /** `onclose`, once the process is gone and its pipes closed (or given up on). */
  private finish(): void {
    if (this.phase !== "running" || this.exitStatus === undefined) return;
    this.phase = "gone";
    for (const stream of [this.child?.stdin, this.child?.stdout, this.child?.stderr]) stream?.destroy();
    this.buffer.clear();
    this.markGone();
    this.onclose?.();
  }
}

/** One line naming the command and why it could not start. */
function spawnError(params: StdioServerParams, error: NodeJS.ErrnoException): MiniclawError {
  const why =
    error.code === "ENOENT" && params.cwd !== undefined && !existsSync(params.cwd) ? `working directory ${params.cwd} does not exist`
    : error.code === "ENOENT" ? "command not found"
    : error.code === "EACCES" ? "permission denied"
    : error.message;
  return new MiniclawError(`could not start MCP server command "${params.command}": ${why}${error.code ? ` (${error.code})` : ""}`, { cause: error });
}
