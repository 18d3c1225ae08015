// run_command's OS sandbox: the setting, bubblewrap probed once, the policy each command runs under, and how it is spawned:
// `bwrap … bash -c COMMAND` (the arguments built purely, so every mount can be read off a list), or plain `bash -c COMMAND`.
import { spawn as nodeSpawn, type ChildProcess, type SpawnOptions, type StdioOptions } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Spawn } from "../../deps.js";
import { ConfigError, orFallback } from "../../errors.js";
import { configurationPaths } from "../../gate/path-check.js";
import { nameReason } from "../../gate/secret-paths.js";
import { probeBwrap, unsandboxedNotice, type BwrapProbe } from "./bwrap-probe.js";
import { nodePathInspector, policyFor, resolveSandbox, type PathInspector, type ResolvedSandbox } from "./sandbox-policy.js";
import type { SandboxKind, SandboxPolicy, SandboxSetting } from "./sandbox-policy.js";
import { unixSocketFilter } from "./unix-socket-filter.js";

export type { SandboxSetting } from "./sandbox-policy.js";

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

/** The sandbox as a person sets it: the mode, and whether approved commands reach the network (default allow). */
export type SandboxOption = SandboxSetting | { mode: SandboxSetting; network?: "allow" | "deny" };
const SETTINGS: readonly SandboxSetting[] = ["off", "on", "auto"];
interface CommandPlace { cwd: string; workspace: string; tmpdir: string; home: string }

/**
 * The sandbox of a runtime's commands. `on`: bubblewrap where it works, read-only commands writing nothing and offline, approved ones
 * writing the working folder and TMPDIR (never the workspace); `auto` also runs unasked, confined and offline, what the judge cannot prove read-only.
 */
export class CommandSandbox {
  readonly setting: SandboxSetting;
  private readonly network: boolean;

  constructor(option: SandboxOption | undefined, private readonly spawn: Spawn = nodeSpawn, private readonly pathEnv: string | undefined = process.env["PATH"]) {
    const { mode, network } = typeof option === "object" ? option : { mode: option ?? "on", network: "allow" };
    this.setting = checkSetting(mode, "sandbox:");
    this.network = network !== "deny";
  }

  /** Whether bubblewrap works here, asked once per PATH and spawn function (a short process run); `off` never asks. */
  probe(): Promise<BwrapProbe> {
    if (this.setting === "off") return Promise.resolve({ available: false, reason: "the sandbox is off" });
    return probeBwrap({ pathEnv: this.pathEnv, spawn: this.spawn });
  }

  /** The line to say once at start when commands run unsandboxed although the setting wants a sandbox; undefined otherwise. */
  async notice(): Promise<string | undefined> {
    return this.setting === "off" ? undefined : (unsandboxedNotice(await this.probe()) ?? undefined);
  }

  /** Whether `auto` can confine commands here: then the judge lets one it cannot prove read-only run unasked. */
  async confines(): Promise<boolean> {
    return this.setting === "auto" && (await this.probe()).available;
  }

  /** How to spawn `command` (already wrapped in its limits) under the policy of `kind`. Throws ToolError for a vanished folder. */
  async plan(command: string, kind: SandboxKind, place: CommandPlace): Promise<CommandPlan> {
    const probe = await this.probe();
    if (this.setting === "off") return planCommand(command, null, probe);
    const setting = this.setting === "auto" ? "auto" : "on";
    const projectSecrets = kind === "approved" ? [] : secretNamesIn(place.cwd);
    const policy = policyFor(kind, { ...place, setting, network: this.network, configFiles: configurationPaths(place.workspace), projectSecrets });
    return planCommand(command, policy, probe);
  }
}

/** The setting of `MINICLAW_SANDBOX` when the caller gave none; a bad value is a ConfigError naming the variable. */
export function sandboxFromEnv(env: Readonly<Record<string, string | undefined>>): SandboxSetting | undefined {
  const raw = env["MINICLAW_SANDBOX"]?.trim();
  if (raw === undefined || raw === "") return undefined;
  return checkSetting(raw, "MINICLAW_SANDBOX");
}

/** The files and folders directly in the working folder whose names say they hold secrets (`.env`, keys, credential files): masked for commands that run unasked. */
function secretNamesIn(cwd: string): string[] {
  return orFallback(() => readdirSync(cwd), []).map((name) => join(cwd, name)).filter((path) => nameReason(path.slice(cwd.length)) !== null);
}

function checkSetting(value: string, where: string): SandboxSetting {
  if (!SETTINGS.includes(value as SandboxSetting)) throw new ConfigError(`${where} must be one of ${SETTINGS.join(", ")}, got ${JSON.stringify(value)}`);
  return value as SandboxSetting;
}
