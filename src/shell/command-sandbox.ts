// run_command's OS sandbox: the setting, bubblewrap probed once, and the policy each command runs under.
import { spawn as nodeSpawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Spawn } from "../deps.js";
import { ConfigError, orFallback } from "../errors.js";
import { configurationPaths } from "../gate/path-check.js";
import { nameReason } from "../gate/secret-paths.js";
import { probeBwrap, unsandboxedNotice, type BwrapProbe } from "./sandbox/bwrap-probe.js";
import { planCommand, type CommandPlan } from "./sandbox/sandbox-command.js";
import { policyFor, type SandboxKind, type SandboxSetting } from "./sandbox/sandbox-policy.js";

export type { SandboxSetting } from "./sandbox/sandbox-policy.js";

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
  private probed: Promise<BwrapProbe> | undefined;

  constructor(option: SandboxOption | undefined, private readonly spawn: Spawn = nodeSpawn, private readonly pathEnv: string | undefined = process.env["PATH"]) {
    const { mode, network } = typeof option === "object" ? option : { mode: option ?? "on", network: "allow" };
    this.setting = checkSetting(mode, "sandbox:");
    this.network = network !== "deny";
  }

  /** Whether bubblewrap works here, asked once (a short process run); `off` never asks. */
  probe(): Promise<BwrapProbe> {
    if (this.setting === "off") return Promise.resolve({ available: false, reason: "the sandbox is off" });
    return (this.probed ??= probeBwrap({ pathEnv: this.pathEnv, spawn: this.spawn }));
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
