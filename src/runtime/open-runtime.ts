// The composition root: what turns need (client, sessions, gate, tools, skills, memory, agents), built once from its options.
import { join, resolve } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { nodeSpawnDefault, refuseApprover, systemClock, type Approver, type Clock, type Spawn } from "../deps.js";
import { configurationPaths } from "../gate/config-registry.js";
import { createGate } from "../gate/gate.js";
import type { CommandJudge, Gate, ModeHolder, PermissionMode } from "../gate/context.js";
import { scrubEnv, secretValues } from "../gate/secret-env.js";
import { MemoryStore } from "../memory/store.js";
import { BUNDLED_SKILLS } from "../paths.js";
import { SessionStore, type SessionStorage } from "../sessions/store.js";
import { createShell, type ShellOptions } from "../shell/index.js";
import { SkillLoader } from "../skills/loader.js";
import { createFileTools } from "../tools/files.js";
import { createLoadSkillTool } from "../tools/load-skill.js";
import { createMemoryTools } from "../tools/memory.js";
import { delegateSource } from "../tools/delegate.js";
import { planSource } from "../tools/exit-plan-mode.js";
import { collectTools, toolList, type ToolSource, type ToolView } from "../tools/source.js";
import type { AnyTool } from "../tools/define.js";
import type { AgentConfig, EventSink } from "../types.js";
import { defaultClient, type Env } from "./default-client.js";
import { checkRuntimeOptions, compactAtFromEnv, type RuntimeOptions } from "./runtime-options.js";
import { readUserProfile } from "./system-prompt.js";

export type { RuntimeOptions } from "./runtime-options.js";

/** The approvals file inside the workspace. */
export const APPROVALS_FILE = "exec-approvals.json";

const RUNTIME = Symbol("miniclaw.runtime");

/** Settings every turn of a runtime shares; a turn's options win where they overlap. */
export interface RuntimeSettings {
  /** The model of agents whose SOUL.md names none (`--model`, MINICLAW_MODEL). */
  model: string | undefined;
  compactAt: number | undefined;
  includeTime: boolean;
  userProfile: string | undefined;
  streamRetryBaseMs: number | undefined;
  streamIdleTimeoutMs: number | undefined;
  maxConcurrentDelegates: number | undefined;
}

/**
 * What turns run with, opened once by `openRuntime` and shared by any number of turns (a REPL, a cron
 * worker, a server handling many users). Holds handles: `close()` when done.
 */
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
  /** The gate of one turn: its events, approver and mode, over the runtime's approvals file, roots and judge. */
  gate(turn: { emit: EventSink; approver: Approver; modes: ModeHolder }): Gate;
  /** Closes what the runtime opened itself (memory's index); never what it was given. Never rejects. */
  close(): Promise<void>;
}

/** Whether a value is a runtime `openRuntime` made. */
export function isRuntime(value: unknown): value is Runtime {
  return typeof value === "object" && value !== null && RUNTIME in value;
}

/**
 * Opens a runtime. Every option has a default: the workspace `./workspace`, the working folder of the
 * process, `process.env`, a client from ANTHROPIC_* of that environment, sessions in the workspace's
 * `sessions/`, the built-in tools (run_command through the shell module, files, memory, skills, and
 * `delegate` for agents that list `delegates`), a refusing approver, the `default` mode. Throws a
 * one-line ConfigError for a bad option or missing credentials.
 */
export async function openRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  checkRuntimeOptions(options);
  const env = options.env ?? process.env;
  const workspace = resolve(options.workspace ?? "workspace");
  const cwd = resolve(options.cwd ?? process.cwd());
  const client = options.client ?? defaultClient(env);
  const builtins = options.builtinTools !== false;
  const memory = builtins ? (options.memory ?? MemoryStore.forWorkspace(workspace)) : undefined;
  const skills = builtins ? (options.skills ?? (await loadSkills(workspace, options.onWarning))) : undefined;
  const shell = options.shell === false ? undefined : createShell(options.shell ?? {}, env);
  const agents = options.agents ?? {};
  const sources: ToolSource[] = [
    ...(memory && skills ? [builtinSource(memory, skills, shell?.tool)] : []),
    ...(options.toolSources ?? []),
    ...(options.tools ? [toolList(options.tools)] : []),
  ];
  const after = [delegateSource(agents), planSource()];
  return {
    [RUNTIME]: true,
    workspace,
    cwd,
    env,
    childEnv: scrubEnv(env),
    secrets: secretValues(env),
    client,
    store: options.store ?? new SessionStore(join(workspace, "sessions"), options.clock ? { clock: options.clock } : {}),
    clock: options.clock ?? systemClock,
    spawn: options.spawn ?? nodeSpawnDefault,
    modes: modesOf(options.permissionMode),
    approver: options.approver ?? refuseApprover,
    agents,
    settings: settingsOf(options, env, workspace),
    skillsListing: skills?.listing(),
    tools: (view, extra = []) => collectTools([...sources, toolList(extra), ...after], view),
    gate: gatesOf(options, { workspace, cwd, env, judge: shell?.judge }),
    notices: async () => [(await shell?.notice()) ?? ""].filter((line) => line !== ""),
    async close() {
      if (options.memory === undefined) memory?.close();
    },
  };
}

function settingsOf(options: RuntimeOptions, env: Env, workspace: string): RuntimeSettings {
  return {
    model: options.model ?? env["MINICLAW_MODEL"],
    compactAt: options.compactAt ?? compactAtFromEnv(env),
    includeTime: options.includeTime ?? true,
    userProfile: options.userProfile ?? readUserProfile(workspace),
    streamRetryBaseMs: options.streamRetryBaseMs,
    streamIdleTimeoutMs: options.streamIdleTimeoutMs,
    maxConcurrentDelegates: options.maxConcurrentDelegates,
  };
}

/** The gates of a runtime's turns: one per turn (its events, approver, mode), sharing the approvals file, the roots, the judge and "always". */
function gatesOf(options: RuntimeOptions, place: { workspace: string; cwd: string; env: Env; judge: CommandJudge | undefined }): Runtime["gate"] {
  const { workspace, cwd, env, judge } = place;
  const remembered = new Set<string>();
  return (turn) =>
    createGate({
      mode: turn.modes,
      approver: turn.approver,
      approvalsPath: join(workspace, APPROVALS_FILE),
      roots: [cwd, workspace],
      protectedDirs: [join(workspace, "sessions")],
      configuration: configurationPaths(workspace),
      cwd,
      ...(env["HOME"] ? { home: env["HOME"] } : {}),
      emit: turn.emit,
      ...(options.onWarning && { onWarning: safeWarn(options.onWarning) }),
      ...(judge && { judge }),
      ...(options.approvals && { approvals: options.approvals }),
      remembered,
    });
}

/** The built-ins in their fixed order (their definitions, made once, stay byte-identical for the prompt cache). */
function builtinSource(memory: MemoryStore, skills: SkillLoader, runCommand: AnyTool | undefined): ToolSource {
  return toolList([...(runCommand ? [runCommand] : []), ...createFileTools(), ...createMemoryTools(memory), createLoadSkillTool(skills)]);
}

async function loadSkills(workspace: string, onWarning: ((message: string) => void) | undefined): Promise<SkillLoader> {
  const loader = new SkillLoader({ dirs: [BUNDLED_SKILLS, join(workspace, "skills")], ...(onWarning && { onWarning: safeWarn(onWarning) }) });
  await loader.load();
  return loader;
}

/** A holder as given, or a new one over the mode given (default `default`). */
export function modesOf(mode: PermissionMode | ModeHolder | undefined): ModeHolder {
  return typeof mode === "object" ? mode : { mode: mode ?? "default" };
}

function safeWarn(sink: (message: string) => void): (message: string) => void {
  return (message) => {
    try {
      sink(message);
    } catch {
      // A warning sink must not break what it reports on.
    }
  };
}

export type { ShellOptions };
