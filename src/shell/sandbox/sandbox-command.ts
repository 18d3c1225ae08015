// How one command is spawned: `bwrap … bash -c COMMAND` under its policy (the arguments built purely, so every mount can be
// read off a list), or plain `bash -c COMMAND` where there is no sandbox.
import type { ChildProcess, SpawnOptions, StdioOptions } from "node:child_process";
import type { Spawn } from "../../deps.js";
import { unsandboxedNotice, type BwrapProbe } from "./bwrap-probe.js";
import { nodePathInspector, resolveSandbox, type PathInspector, type ResolvedSandbox } from "./resolve-sandbox.js";
import type { SandboxPolicy } from "./sandbox-policy.js";
import { unixSocketFilter } from "./unix-socket-filter.js";

/** The descriptor the seccomp program is handed to bwrap on: the first after stdin, stdout and stderr. */
const SECCOMP_FD = 3;

/** What to spawn: bwrap, with the seccomp bytes for descriptor 3 and what it cannot promise here; or bash, with why (null when `off`). */
export type CommandPlan =
  | { sandboxed: true; file: string; args: string[]; seccomp: Uint8Array | null; warnings: string[] }
  | { sandboxed: false; file: "bash"; args: string[]; notice: string | null };

/** The plan for `command` under `policy`, or plain bash without one. Throws a ToolError when its working folder or TMPDIR is gone. */
export function planCommand(command: string, policy: SandboxPolicy | null, probe: BwrapProbe, inspector: PathInspector = nodePathInspector): CommandPlan {
  if (policy === null || !probe.available) return { sandboxed: false, file: "bash", args: ["-c", command], notice: policy === null ? null : unsandboxedNotice(probe) };
  const sandbox = resolveSandbox(policy, inspector);
  const seccomp = policy.unixSockets ? null : unixSocketFilter();
  const warnings = [...sandbox.warnings];
  if (!policy.unixSockets && seccomp === null) warnings.push(`Unix sockets are not blocked on ${process.arch}: only those under /tmp and /run are hidden`);
  const args = bwrapArgs(sandbox, command, { disableUserns: probe.disableUserns, seccompFd: seccomp === null ? null : SECCOMP_FD });
  return { sandboxed: true, file: probe.path, args, seccomp, warnings };
}

/** Spawns a plan, writing the seccomp program to descriptor 3 at once; a sandboxed command gets only stdin, stdout and stderr. */
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

/**
 * bwrap's arguments, `bash -c command` last. `--disable-userns`: no user namespace inside (it would hand back every capability);
 * `--cap-drop ALL` matters as root; `--new-session` takes the terminal away (no TIOCSTI).
 */
export function bwrapArgs(sandbox: ResolvedSandbox, command: string, features: { disableUserns: boolean; seccompFd: number | null }): string[] {
  return [
    ...["--die-with-parent", "--new-session", "--unshare-all", "--unshare-user", ...(features.disableUserns ? ["--disable-userns"] : [])],
    ...(sandbox.network ? ["--share-net"] : []),
    ...["--cap-drop", "ALL", ...(features.seccompFd === null ? [] : ["--seccomp", String(features.seccompFd)])],
    ...mountArgs(sandbox),
    ...["--setenv", "TMPDIR", sandbox.tmpdir, "--chdir", sandbox.cwd, "bash", "-c", command],
  ];
}

function mountArgs(sandbox: ResolvedSandbox): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const dir of sandbox.privateDirs) args.push("--tmpfs", dir);
  for (const dir of sandbox.visible) args.push("--ro-bind", dir, dir);
  for (const dir of sandbox.writable) args.push("--bind", dir, dir);
  args.push("--bind", sandbox.tmpdir, sandbox.tmpdir);
  for (const dir of sandbox.pinned) args.push("--bind", dir, dir);
  for (const path of sandbox.readOnly) args.push("--ro-bind", path, path);
  // /dev/null itself, with its device: reads are empty and writes vanish (a plain bind would be nodev and refuse reads).
  for (const file of sandbox.maskedFiles) args.push("--dev-bind", "/dev/null", file);
  for (const dir of sandbox.maskedDirs) args.push("--tmpfs", dir, "--remount-ro", dir);
  return args;
}
