// The assistant as the CLI and cron use it: agents, skills, memory and sessions opened once, one turn per message.
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { systemClock, type Approver, type Clock } from "../deps.js";
import { compactSession } from "../loop/compact.js";
import { sessionContextSize } from "../sessions/tokens.js";
import { ConfigError } from "../errors.js";
import { runAgentTurn } from "../loop/run-turn.js";
import { modeHolderOf, type ModeHolder, type TurnOptions } from "../loop/options.js";
import { MemoryStore } from "../memory/store.js";
import { createClient, pickModel, type Env } from "../model/client.js";
import { hideSecretsFromProcEnviron } from "../model/environ-hiding.js";
import { readMcpConfig, parseMcpConfig, type McpServersConfig } from "../mcp/config.js";
import { hubFor, McpHub } from "../mcp/hub.js";
import { isSecretVariable } from "../gate/secret-env.js";
import { BUNDLED_SKILLS } from "../paths.js";
import type { PermissionMode } from "../gate/context.js";
import { openSession } from "../sessions/session-handle.js";
import { recordMode } from "../loop/steering.js";
import type { SessionBackend } from "../sessions/store.js";
import { openSessionBackend } from "../sessions/backend.js";
import type { DatabaseOption } from "../postgres/config.js";
import { SkillLoader } from "../skills/loader.js";
import type { AgentConfig, EventSink, TurnResult } from "../types.js";
import { loadAgents } from "./agents.js";
import { DEFAULT_AGENT_ID, resolveAgent } from "./routing.js";
import { readUserProfile } from "../loop/system-prompt.js";

export interface AssistantOptions {
  workspace: string;
  cwd: string;
  env: Env;
  /** A ready client; default built from `env` (throws ConfigError without credentials). */
  client?: Anthropic;
  /** `--model`: used by agents whose SOUL.md names none. */
  model?: string;
  /** The sessions, opened by the caller (a PostgreSQL backend from miniclaw/postgres); default the workspace's files. Left open by `close()`. */
  store?: SessionBackend;
  /** `--database-url`: sessions on PostgreSQL (a URL or a config; over MINICLAW_DATABASE_URL of `env`). Default: files. */
  database?: DatabaseOption | undefined;
  /** `--agent`: the agent of messages that carry no prefix. */
  defaultAgent?: string;
  approver?: Approver;
  /** The mode the process starts in (default `default`); `setPermissionMode` changes it. */
  permissionMode?: PermissionMode;
  clock?: Clock;
  /** Warnings met while loading (bad SOUL.md, skill rule breaks); must not throw. */
  onWarning?: (message: string) => void;
  /**
   * Anything else a turn takes (budgets, hooks, extra tools). Its `mcpServers` wins over the
   * workspace's mcp.json: a hub is used as is (and left running by `close()`); a servers object
   * becomes the assistant's own hub, like mcp.json's. Its `inbox` replaces each session's durable
   * one; its `permissionMode` (a mode, or a holder used as is) is the start mode when `permissionMode` is not given.
   */
  turn?: TurnOptions;
}

export interface SendOptions {
  /** `--session`: the session key; default `agent:<agent>:main`. */
  sessionKey?: string;
  signal?: AbortSignal;
  onEvent?: EventSink;
  /** Overrides the assistant's approver for this message (cron passes the refusing one). */
  approver?: Approver;
  /** Settings of this message's turn, over the assistant's `turn` and the agent's SOUL.md (the REPL's /effort, an output schema). */
  turn?: TurnOverrides;
}

/** What one message may set for its turn alone. */
export type TurnOverrides = Pick<TurnOptions, "thinking" | "effort" | "toolChoice" | "output" | "outputRetries">;

export interface Assistant {
  workspace: string;
  agents: Record<string, AgentConfig>;
  skills: SkillLoader;
  memory: MemoryStore;
  /** The sessions: on PostgreSQL when a database is configured, else the workspace's files. */
  sessions: SessionBackend;
  /** The agent a message goes to and the message without its prefix. */
  route(text: string): { agent: AgentConfig; text: string };
  /** The default session key of an agent. */
  sessionKeyFor(agentId: string): string;
  /**
   * Routes the message and runs one turn, with the workspace's agents (for `delegate`), the
   * process's permission mode, and the session's durable inbox (steering from `steer`, from
   * `miniclaw steer` in another process, or left from an earlier turn).
   */
  send(text: string, options?: SendOptions): Promise<TurnResult>;
  /** The permission mode now: what `setPermissionMode` set, or what exit_plan_mode chose since. */
  readonly permissionMode: PermissionMode;
  /**
   * Sets the permission mode of every turn of this process, a running one included, from its next
   * tool call. Only the user calls it (the REPL's /mode), so any mode goes, `bypassPermissions`
   * included. It records nothing itself: the turn records the change in its session and reports it.
   */
  setPermissionMode(mode: PermissionMode): void;
  /**
   * Records the mode now in an existing session no turn is running in (a REPL's /mode between turns),
   * so a reload keeps it even if no turn follows; a running turn records a change itself. Never throws.
   */
  recordPermissionMode(sessionKey: string, agentId: string): Promise<void>;
  /**
   * Adds a steering message to the durable inbox of `sessionKey` and resolves to its id once it is
   * on disk: the turn running in that session (in any process) takes it before its next request,
   * or the session's next turn does; it is delivered once. Throws SessionError for empty text or an invalid key.
   */
  steer(sessionKey: string, text: string): Promise<string>;
  /** Compacts a session now (keeping its last turn); resolves to one line saying what happened. */
  compact(sessionKey: string, agentId: string, onEvent?: EventSink): Promise<string>;
  /**
   * The MCP servers every turn of this assistant shares (mcp.json's, or the `turn.mcpServers` option's),
   * undefined when there are none. They connect at the first turn that needs them, or at `connect()`.
   */
  mcp: McpHub | undefined;
  /** Releases watchers and handles (the database's connections when no one else uses them), and stops the MCP servers the assistant started; never rejects. */
  close(): Promise<void>;
}

/**
 * Opens the workspace: loads agents and skills once, and reads mcp.json (its servers start only when
 * a turn or `assistant.mcp.connect()` needs them). Throws ConfigError (no credentials, no agent, a bad mcp.json).
 */
export async function openAssistant(opts: AssistantOptions): Promise<Assistant> {
  const client = opts.client ?? createClient({ env: opts.env });
  // Built from the process's own environment: its commands must not find the key in /proc/<our pid>/environ.
  if (!opts.client && opts.env === process.env) hideSecretsFromProcEnviron(isSecretVariable);
  const warn = opts.onWarning ?? (() => {});
  const skills = new SkillLoader({ dirs: [BUNDLED_SKILLS, join(opts.workspace, "skills")], onWarning: warn });
  const userProfile = readUserProfile(opts.workspace);
  const [agents, mcp] = await Promise.all([
    loadAgents(opts.workspace, { onWarning: warn, knownTools: (opts.turn?.tools ?? []).map((tool) => tool.name) }),
    assistantMcp(opts, warn),
    skills.load(),
  ]);
  const defaultAgent = opts.defaultAgent ?? DEFAULT_AGENT_ID;
  if (!agents[defaultAgent]) {
    throw new ConfigError(`no agent "${defaultAgent}" in ${join(opts.workspace, "agents")} (available: ${Object.keys(agents).join(", ")})`);
  }
  const memory = MemoryStore.forWorkspace(opts.workspace);
  const sessionsDir = join(opts.workspace, "sessions");
  const sessions = opts.store ?? (await openSessionBackend({ sessionsDir, database: opts.database, env: opts.env, clock: opts.clock, onWarning: warn }));
  // One holder for the process: every turn's gate reads it at each call, so a change reaches a running turn.
  const modes = modeHolder(opts);
  const route = (text: string): { agent: AgentConfig; text: string } => {
    const [id, rest] = resolveAgent(text, agents, defaultAgent);
    return { agent: agents[id]!, text: rest };
  };
  const sessionKeyFor = (agentId: string): string => `agent:${agentId}:main`;
  return {
    workspace: opts.workspace,
    agents,
    skills,
    memory,
    sessions,
    mcp: mcp.hub,
    route,
    sessionKeyFor,
    get permissionMode() {
      return modes.mode;
    },
    setPermissionMode(mode) {
      modes.mode = mode;
    },
    async recordPermissionMode(sessionKey, agentId) {
      try {
        if (!(await sessions.exists(sessionKey))) return;
        const opened = await openSession(sessions, sessionKey, { agentId, clock: opts.clock ?? systemClock });
        if (opened.status !== "open") return;
        try {
          await recordMode(modes.mode, opened.handle, () => {}, "user");
        } finally {
          await opened.handle.release();
        }
      } catch (error) {
        warn(`could not record the permission mode in ${sessionKey} (${error instanceof Error ? error.message : String(error)})`);
      }
    },
    steer: (sessionKey, text) => sessions.addSteer(sessionKey, text),
    async send(text, send = {}) {
      const { agent, text: message } = route(text);
      const sessionKey = send.sessionKey ?? sessionKeyFor(agent.id);
      const turn: TurnOptions = {
        ...opts.turn,
        ...send.turn,
        ...(mcp.hub !== undefined && { mcpServers: mcp.hub }),
        workspace: opts.workspace,
        cwd: opts.cwd,
        env: opts.env,
        client,
        store: sessions,
        skills,
        memory,
        userProfile: userProfile ?? "",
        ...(opts.model !== undefined && { model: opts.model }),
        ...(opts.clock !== undefined && { clock: opts.clock }),
        agents,
        permissionMode: modes,
        inbox: opts.turn?.inbox ?? sessions.inbox(sessionKey, { onWarning: warn }),
        ...((send.approver ?? opts.approver) !== undefined && { approver: (send.approver ?? opts.approver)! }),
        ...(send.signal !== undefined && { signal: send.signal }),
        ...(send.onEvent !== undefined && { onEvent: send.onEvent }),
      };
      return runAgentTurn(sessionKey, message, agent, turn);
    },
    async compact(sessionKey, agentId, onEvent) {
      const agent = agents[agentId] ?? agents[defaultAgent]!;
      const clock = opts.clock ?? systemClock;
      const opened = await openSession(sessions, sessionKey, { agentId: agent.id, clock });
      if (opened.status !== "open") return `Not compacted: ${opened.status === "unreadable" ? opened.error : "interrupted"}.`;
      const session = opened.handle;
      try {
        if (session.session.records.length === 0) return "Nothing to compact yet.";
        const outcome = await compactSession({
          client,
          model: pickModel(agent.model, opts.model, opts.env["MINICLAW_MODEL"]),
          session,
          tokensBefore: sessionContextSize(session.session),
          reason: "requested",
          signal: new AbortController().signal,
          emit: onEvent ?? (() => {}),
          now: () => clock.now(),
          keepTokens: 0,
        });
        if (!outcome.compacted) return `Not compacted: ${outcome.reason}.`;
        return `Compacted ${sessionKey}: the model now sees ${session.session.messages.length} messages, the summary first.`;
      } finally {
        await session.release();
      }
    },
    async close() {
      memory.close();
      if (mcp.owned) await mcp.hub?.close();
      if (!opts.store) await sessions.close();
    },
  };
}

/**
 * The MCP servers of `<workspace>/mcp.json` as a hub for one process, undefined when the file does not
 * exist or lists no server. Nothing starts until `connect()`; stdio servers get the environment without
 * its secrets (an entry's own `env` adds to it), and `${VAR}` is read from `env`. Throws a one-line
 * ConfigError naming the file, the server and the field when the file is bad.
 */
export async function openMcpHub(workspace: string, env: Env, onWarning: (message: string) => void): Promise<McpHub | undefined> {
  return hubOf(await readMcpConfig(workspace, env), env, onWarning);
}

/** The process's mode: the option's holder as given, or a new one from the mode option (default `default`). */
function modeHolder(opts: AssistantOptions): ModeHolder {
  return modeHolderOf(opts.permissionMode ?? opts.turn?.permissionMode);
}

/** The assistant's servers: the option's hub (not its to stop), the option's servers, or mcp.json's. */
async function assistantMcp(opts: AssistantOptions, warn: (message: string) => void): Promise<{ hub: McpHub | undefined; owned: boolean }> {
  const given = opts.turn?.mcpServers;
  if (given instanceof McpHub) return { hub: given, owned: false };
  if (given !== undefined) return { hub: hubOf(parseMcpConfig(given, "the mcpServers option", opts.env), opts.env, warn), owned: true };
  return { hub: await openMcpHub(opts.workspace, opts.env, warn), owned: true };
}

function hubOf(config: McpServersConfig | undefined, env: Env, onWarning: (message: string) => void): McpHub | undefined {
  if (config === undefined || Object.keys(config).length === 0) return undefined;
  return hubFor(config, env, onWarning);
}
