// What `openRuntime` takes: every field optional, checked by zod, an unknown or misplaced name refused in one line; and the zod pieces the turn options share.
import type Anthropic from "@anthropic-ai/sdk";
import * as z from "zod";
import type { Approver, Clock, Spawn } from "../deps.js";
import { ConfigError } from "../errors.js";
import { checkConfig } from "../fs/config-file.js";
import type { ApprovalLists } from "../gate/approval-entries.js";
import { PERMISSION_MODES, type ModeHolder, type PermissionMode } from "../gate/context.js";
import type { MemoryStore } from "../memory/store.js";
import type { Parsed } from "../model/settings.js";
import type { Env } from "../model/client.js";
import type { SessionStorage } from "../sessions/store.js";
import type { ShellOptions } from "../shell/index.js";
import type { SkillLoader } from "../skills/loader.js";
import type { AnyTool } from "../tools/define.js";
import type { ToolSource } from "../tools/source.js";
import type { AgentConfig } from "../types.js";

/** What a runtime is built from; every field has a default (see `openRuntime`). */
export interface RuntimeOptions {
  /** Workspace folder (agents, sessions, memory, approvals). Default `~/.miniclaw/workspace`. */
  workspace?: string;
  /** Working folder of commands and relative paths. Default the process's. */
  cwd?: string;
  /** Environment read for ANTHROPIC_* and MINICLAW_*, and given without secrets to commands; default `process.env`. */
  env?: Env;
  /** The Anthropic client; default built from `env`. */
  client?: Anthropic;
  /** The model of agents whose SOUL.md names none; default MINICLAW_MODEL, else the newest Sonnet. */
  model?: string;
  /** The sessions; default the workspace's files (`sessions/`). A PostgreSQL backend comes from miniclaw/postgres. */
  store?: SessionStorage;
  /** Who answers approval requests; default refuses (nobody is there to ask). */
  approver?: Approver;
  /** Entries beside exec-approvals.json's, for this runtime's turns alone and never written to it (the CLI's --allowed-tools, --disallowed-tools). */
  approvals?: ApprovalLists;
  /** The mode of the runtime's turns, or a holder whose mode may change while they run. Default `default`. */
  permissionMode?: PermissionMode | ModeHolder;
  /** Tools every turn gets beside the built-ins (a same-named tool replaces the built-in). */
  tools?: AnyTool[];
  /** More tools, listed before each request: MCP servers (miniclaw/mcp's `connectMcpServers`). The caller closes them. */
  toolSources?: ToolSource[];
  /** Set false to offer only `tools` and `toolSources`. */
  builtinTools?: boolean;
  /** run_command's limits and sandbox (`"off" | "on" | "auto"`, default MINICLAW_SANDBOX, else on); false: no run_command, no judge (every command is asked). */
  shell?: ShellOptions | false;
  /** Skills offered through load_skill; default the bundled ones and `workspace/skills/`. */
  skills?: SkillLoader;
  /** Long-term memory; default `workspace/memory/`. */
  memory?: MemoryStore;
  /** The workspace's agents, for the `delegate` tool of an agent with `delegates`. */
  agents?: Readonly<Record<string, AgentConfig>>;
  clock?: Clock;
  spawn?: Spawn;
  /** Compact before a request whose context passes this many tokens; default 80% of the window, or MINICLAW_COMPACT_AT. */
  compactAt?: number;
  /** Adds the current time to each user message (never to the system prompt, which stays byte-stable). Default true. */
  includeTime?: boolean;
  /** The text of USER.md; default read from the workspace. */
  userProfile?: string;
  /** The project's instructions to agents; default the AGENTS.md and CLAUDE.md of `cwd` and its parents up to the repository's root ("" for none). */
  projectInstructions?: string;
  /** Base delay of the loop's own retry of a broken stream. */
  streamRetryBaseMs?: number;
  /** Silence after which a started stream counts as broken (default: the client's timeout, at most 120 s). */
  streamIdleTimeoutMs?: number;
  /** Delegate calls of one response run together, at most this many at a time (default 4). */
  maxConcurrentDelegates?: number;
  /** Warnings met while loading (a skill's rule broken, a corrupt approvals file); must not throw. */
  onWarning?: (message: string) => void;
}

/** Any object, named in the error when it is not one. */
export const objectOf = (what: string): z.ZodType<object> => z.custom<object>((value) => typeof value === "object" && value !== null, `must be ${what}`);
export const fn = z.custom<(...args: never[]) => unknown>((value) => typeof value === "function", "must be a function");
/** A permission mode, or a holder of one. */
export const modeSchema: z.ZodType<PermissionMode | ModeHolder> = z.union([
  z.enum(PERMISSION_MODES, { error: `must be one of ${PERMISSION_MODES.join(", ")}` }),
  z.custom<ModeHolder>((value) => typeof value === "object" && value !== null && "mode" in value, "must be a mode or an object holding one ({ mode })"),
]);

/** A setting checked by one of the parsers that flags, options and SOUL.md share, so each value means one thing everywhere; its problem is the error. */
export function settingOf<T>(parse: (raw: unknown) => Parsed<T>) {
  return z.unknown().transform((raw, ctx) => {
    const parsed = parse(raw);
    if (parsed.ok) return parsed.value;
    ctx.addIssue({ code: "custom", message: parsed.problem });
    return z.NEVER;
  });
}

/** A tool as `defineTool` makes it (a raw API tool definition or a JSON Schema input is not one). */
export function isTool(value: unknown): value is AnyTool {
  const tool = value as Partial<AnyTool> | null;
  return typeof tool === "object" && tool !== null && typeof tool.name === "string" && typeof tool.run === "function" && typeof tool.input?.safeParse === "function" && tool.access !== undefined;
}

const positiveInt = z.number().int().positive();

const schema = z.strictObject({
  workspace: z.string().min(1).optional(),
  cwd: z.string().min(1).optional(),
  env: objectOf("an environment object such as process.env").optional(),
  client: objectOf("an Anthropic client (from createClient, or the SDK)").optional(),
  model: z.string().min(1).optional(),
  store: objectOf("a session store (SessionStore, or openPostgres(url).sessions)").optional(),
  approver: fn.optional(),
  approvals: z.strictObject({ allowed: z.array(z.string()).optional(), denied: z.array(z.string()).optional() }).optional(),
  permissionMode: modeSchema.optional(),
  tools: z.array(z.custom<AnyTool>(isTool, "must be tools made with defineTool")).optional(),
  toolSources: z.array(z.custom<ToolSource>((v) => typeof (v as ToolSource | null)?.list === "function", "must be tool sources (objects with list())")).optional(),
  builtinTools: z.boolean().optional(),
  shell: z.union([z.literal(false), z.looseObject({ timeoutMs: positiveInt.optional(), sandbox: z.unknown().optional() })]).optional(),
  skills: objectOf("a SkillLoader").optional(),
  memory: objectOf("a MemoryStore").optional(),
  agents: z.record(z.string(), objectOf("an AgentConfig")).optional(),
  clock: objectOf("a Clock ({ now, sleep })").optional(),
  spawn: fn.optional(),
  compactAt: positiveInt.optional(),
  includeTime: z.boolean().optional(),
  userProfile: z.string().optional(),
  projectInstructions: z.string().optional(),
  streamRetryBaseMs: z.number().nonnegative().optional(),
  streamIdleTimeoutMs: positiveInt.optional(),
  maxConcurrentDelegates: positiveInt.optional(),
  onWarning: fn.optional(),
});

/** Names of other harnesses' options, and where that setting lives here. */
const ALIASES: Record<string, string> = {
  mcpServers: "connect them with connectMcpServers from miniclaw/mcp and pass the hub in toolSources",
  database: "open it with openPostgres from miniclaw/postgres and pass its sessions as store",
  commandTimeoutMs: "shell: { timeoutMs } sets run_command's timeout",
  permissions: "permissionMode and approver decide what runs",
};

/** Throws a one-line ConfigError naming the option and the fix when `options` is not what openRuntime takes. */
export function checkRuntimeOptions(options: unknown): void {
  if (options === null || typeof options !== "object") throw new ConfigError("openRuntime: options must be an object such as { workspace }");
  checkConfig(schema, options, "openRuntime options", ALIASES);
}

/** MINICLAW_COMPACT_AT in tokens; a bad value is a ConfigError, not a silent default. */
export function compactAtFromEnv(env: Env): number | undefined {
  const raw = env["MINICLAW_COMPACT_AT"];
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new ConfigError(`MINICLAW_COMPACT_AT must be a positive whole number of tokens, got "${raw}"`);
  return value;
}

/** The names openRuntime takes, for the turn options' hint that a name belongs there. */
export const RUNTIME_OPTION_NAMES: readonly string[] = Object.keys(schema.shape);
