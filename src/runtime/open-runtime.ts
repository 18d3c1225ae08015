// The composition root: what turns need (client, sessions, gate, tools, skills, memory, agents), built once from its options.
import { join, resolve } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { nodeSpawnDefault, refuseApprover, safeSink, systemClock, type Approver, type Clock, type Spawn } from "../deps.js";
import { configurationPaths } from "../gate/path-check.js";
import type { WarningSink } from "../gate/approval-entries.js";
import type { Gate, ModeHolder, PermissionMode } from "../gate/context.js";
import { createGate } from "../gate/gate.js";
import { isSecretVariable, scrubEnv, secretValues } from "../gate/secret-env.js";
import { MemoryStore } from "../memory/store.js";
import { ConfigError } from "../errors.js";
import { createClient, type Env } from "../model/client.js";
import { nonEmpty } from "../model/credentials.js";
import { hideSecretsFromProcEnviron } from "../model/environ-hiding.js";
import { BUNDLED_SKILLS } from "../paths.js";
import { SessionStore, type SessionStorage } from "../sessions/store.js";
import { createShell, type ShellOptions } from "../shell/index.js";
import { SkillLoader } from "../skills/loader.js";
import type { AnyTool } from "../tools/define.js";
import { createFileTools } from "../tools/files.js";
import { createLoadSkillTool, createMemoryTools } from "../tools/memory.js";
import { collectTools, delegateSource, planSource, toolList, type ToolView } from "../tools/source.js";
import type { AgentConfig, EventSink } from "../types.js";
import { checkRuntimeOptions, compactAtFromEnv, type RuntimeOptions } from "./runtime-options.js";
import { projectInstructions, readProjectFiles, readUserProfile } from "./system-prompt.js";
import { defaultWorkspace } from "./workspace.js";

export type { RuntimeOptions, ShellOptions };

/** The approvals file inside the workspace. */
export const APPROVALS_FILE = "exec-approvals.json";
const RUNTIME = Symbol("miniclaw.runtime");

/** Settings every turn of a runtime shares (see RuntimeOptions); a turn's options win where they overlap. */
export type RuntimeSettings = { [K in "model" | "compactAt" | "userProfile" | "projectInstructions" | "streamRetryBaseMs" | "streamIdleTimeoutMs" | "maxConcurrentDelegates"]: RuntimeOptions[K] } & { includeTime: boolean };

/** What turns run with, opened once by `openRuntime` and shared by any number of turns (a REPL, a cron worker, a server). `close()` when done. */
export interface Runtime {
  readonly [RUNTIME]: true;
  readonly workspace: string;
  readonly cwd: string;
  readonly env: Env;
  /** The environment of child processes: `env` without its secrets. */
  readonly childEnv: Env;
  /** The secret values of `env`, redacted from every tool result. */
  readonly secrets: readonly string[];
  readonly client: Anthropic;
  readonly store: SessionStorage;
  readonly clock: Clock;
  readonly spawn: Spawn;
  /** The permission mode of the runtime's turns: a change reaches a running turn at its next call. */
  readonly modes: ModeHolder;
  readonly approver: Approver;
  readonly agents: Readonly<Record<string, AgentConfig>>;
  readonly settings: RuntimeSettings;
  /** The skills listing of the system prompt, when skills are offered. */
  readonly skillsListing: string | undefined;
  /** The tools of one request: every source, filtered by the agent's `tools:` list; `extra` are a turn's own. */
  tools(view: ToolView, extra?: readonly AnyTool[]): Promise<Map<string, AnyTool>>;
  /** Lines for the user at start, one each (commands run unsandboxed, and why); never rejects. */
  notices(): Promise<string[]>;
  /** The gate of one turn: its events, approver and mode, over the runtime's approvals file, roots, judge and "always". */
  gate(turn: { emit: EventSink; approver: Approver; modes: ModeHolder }): Gate;
  /** Closes what the runtime opened itself (memory's index); never what it was given. Never rejects. */
  close(): Promise<void>;
}

/** Whether a value is a runtime `openRuntime` made. */
export function isRuntime(value: unknown): value is Runtime {
  return typeof value === "object" && value !== null && RUNTIME in value;
}

/**
 * Opens a runtime; every option has a default: `~/.miniclaw/workspace`, the process's folder and environment, a client from its ANTHROPIC_*, sessions in
 * `sessions/`, the built-in tools, a refusing approver, the `default` mode. Throws a one-line ConfigError for a bad option or missing credentials.
 */
export async function openRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  checkRuntimeOptions(options);
  const env = options.env ?? process.env;
  const workspace = options.workspace === undefined ? defaultWorkspace(env) : resolve(options.workspace);
  const cwd = resolve(options.cwd ?? process.cwd());
  const provider = options.client ? undefined : nonEmpty(env["MINICLAW_PROVIDER"])?.toLowerCase();
  if (provider && provider !== "anthropic") throw new ConfigError(`MINICLAW_PROVIDER=${provider}: pass its client, client: await createClient({ provider: "${provider}" }) from miniclaw/providers`);
  const client = options.client ?? createClient({ env });
  // A client from the process's own environment: its secrets are then blanked in /proc/<pid>/environ (process.env keeps them).
  if (!options.client && env === process.env) hideSecretsFromProcEnviron(isSecretVariable);
  const builtins = options.builtinTools !== false;
  const warn = options.onWarning && safeSink(options.onWarning);
  const memory = builtins ? (options.memory ?? MemoryStore.forWorkspace(workspace)) : undefined;
  const skills = builtins ? (options.skills ?? (await loadSkills(workspace, warn))) : undefined;
  const shell = options.shell === false ? undefined : createShell(options.shell ?? {}, env);
  const agents = options.agents ?? {};
  // The built-ins in their fixed order (made once, their definitions stay byte-identical for the prompt cache), then what was given.
  const builtinTools = memory && skills && [...(shell ? [shell.tool] : []), ...createFileTools(), ...createMemoryTools(memory), createLoadSkillTool(skills)];
  const sources = [...(builtinTools ? [toolList(builtinTools)] : []), ...(options.toolSources ?? []), ...(options.tools ? [toolList(options.tools)] : [])];
  const after = [delegateSource(agents), planSource()];
  const { streamRetryBaseMs, streamIdleTimeoutMs, maxConcurrentDelegates } = options;
  // One gate per turn (its events, approver, mode), all sharing the approvals file, the roots, the judge and "always".
  const folders = { approvalsPath: join(workspace, APPROVALS_FILE), roots: [cwd, workspace], protectedDirs: [join(workspace, "sessions")], configuration: configurationPaths(workspace) };
  const shared = { ...folders, cwd, remembered: new Set<string>(), ...(env["HOME"] && { home: env["HOME"] }), ...(warn && { onWarning: warn }) };
  const gates = { ...shared, ...(shell && { judge: shell.judge }), ...(options.approvals && { approvals: options.approvals }) };
  return {
    [RUNTIME]: true, workspace, cwd, env, client, agents,
    childEnv: scrubEnv(env),
    secrets: secretValues(env),
    store: options.store ?? new SessionStore(join(workspace, "sessions"), options.clock ? { clock: options.clock } : {}),
    clock: options.clock ?? systemClock,
    spawn: options.spawn ?? nodeSpawnDefault,
    modes: modesOf(options.permissionMode),
    approver: options.approver ?? refuseApprover,
    settings: {
      model: options.model ?? env["MINICLAW_MODEL"],
      compactAt: options.compactAt ?? compactAtFromEnv(env),
      includeTime: options.includeTime ?? true,
      userProfile: options.userProfile ?? readUserProfile(workspace),
      projectInstructions: options.projectInstructions ?? projectInstructions(readProjectFiles(cwd)),
      streamRetryBaseMs, streamIdleTimeoutMs, maxConcurrentDelegates,
    },
    skillsListing: skills?.listing(),
    tools: (view, extra = []) => collectTools([...sources, toolList(extra), ...after], view),
    gate: (turn) => createGate({ ...gates, mode: turn.modes, approver: turn.approver, emit: turn.emit }),
    notices: async () => [(await shell?.notice()) ?? ""].filter((line) => line !== ""),
    async close() {
      if (options.memory === undefined) memory?.close();
    },
  };
}

/** The bundled skills and the workspace's own (`skills/`), loaded; a broken one is a warning. */
export async function loadSkills(workspace: string, onWarning: WarningSink | undefined): Promise<SkillLoader> {
  const loader = new SkillLoader({ dirs: [BUNDLED_SKILLS, join(workspace, "skills")], ...(onWarning && { onWarning }) });
  await loader.load();
  return loader;
}

/** A holder as given, or a new one over the mode given (default `default`). */
export function modesOf(mode: PermissionMode | ModeHolder | undefined): ModeHolder {
  return typeof mode === "object" ? mode : { mode: mode ?? "default" };
}
