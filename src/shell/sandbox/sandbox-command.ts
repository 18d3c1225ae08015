// How one command is spawned: `bwrap … bash -c COMMAND` under its policy, or plain `bash -c COMMAND` where there is no sandbox.
import type { ChildProcess, SpawnOptions, StdioOptions } from "node:child_process";
import type { Spawn } from "../../deps.js";
import { bwrapArgs } from "./bwrap-args.js";
import { unsandboxedNotice, type BwrapProbe } from "./bwrap-probe.js";
import { nodePathInspector, resolveSandbox, type PathInspector } from "./resolve-sandbox.js";
import type { SandboxPolicy } from "./sandbox-policy.js";
import { unixSocketFilter } from "./unix-socket-filter.js";

/** The descriptor the seccomp program is handed to bwrap on: the first after stdin, stdout and stderr. */
const SECCOMP_FD = 3;

/** What to spawn for one command. */
export type CommandPlan =
  | {
      sandboxed: true;
      file: string;
      args: string[];
      /** The bytes to write to descriptor 3 of the child (`spawnPlanned` does it), or null. */
      seccomp: Uint8Array | null;
      /** What this sandbox cannot promise here, one line each, for the caller to say once. */
      warnings: string[];
    }
  | {
      sandboxed: false;
      file: "bash";
      args: string[];
      /** Why there is no sandbox, once per process (`commands run unsandboxed: ...`); null when the setting is `off`. */
      notice: string | null;
    };

/**
 * The plan for `command` under `policy`: plain `bash -c command` without a policy (setting `off`) or a working bwrap.
 * Throws a ToolError when the policy's working folder or TMPDIR does not exist.
 */
export function planCommand(command: string, policy: SandboxPolicy | null, probe: BwrapProbe, inspector: PathInspector = nodePathInspector): CommandPlan {
  if (policy === null || !probe.available) return { sandboxed: false, file: "bash", args: ["-c", command], notice: policy === null ? null : unsandboxedNotice(probe) };
  const sandbox = resolveSandbox(policy, inspector);
  const seccomp = policy.unixSockets ? null : unixSocketFilter();
  const warnings = [...sandbox.warnings];
  if (!policy.unixSockets && seccomp === null) warnings.push(`Unix sockets are not blocked on ${process.arch}: only those under /tmp and /run are hidden`);
  const args = bwrapArgs(sandbox, command, { disableUserns: probe.disableUserns, seccompFd: seccomp === null ? null : SECCOMP_FD });
  return { sandboxed: true, file: probe.path, args, seccomp, warnings };
}

/**
 * Spawns a plan with `options` as given, adding descriptor 3 for the seccomp program, written at once (bwrap reads it
 * before the command starts). Descriptors past stdin, stdout and stderr are not passed on to a sandboxed command.
 */
export function spawnPlanned(spawn: Spawn, plan: CommandPlan, options: SpawnOptions): ChildProcess {
  const seccomp = plan.sandboxed ? plan.seccomp : null;
  if (seccomp === null) return spawn(plan.file, plan.args, options);
  const given = options.stdio ?? "pipe";
  const standard = typeof given === "string" ? [given, given, given] : [0, 1, 2].map((fd) => given[fd] ?? "pipe");
  const child = spawn(plan.file, plan.args, { ...options, stdio: [...standard, "pipe"] as StdioOptions });
  const pipe = child.stdio[SECCOMP_FD];
  if (pipe !== null && pipe !== undefined && "end" in pipe) {
    // A child that failed to start has no reader: the write error is its spawn error, reported by the child.
    pipe.on("error", () => {});
    pipe.end(seccomp);
  }
  return child;
}
