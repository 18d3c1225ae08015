// The assistant the CLI and cron use: a runtime with the workspace's agents, routing, session keys, steering and compaction.
import { join } from "node:path";
import type { Approver } from "../deps.js";
import { ConfigError, messageOf } from "../errors.js";
import type { PermissionMode } from "../gate/context.js";
import { compactSession } from "../loop/compact.js";
import { runAgentTurn } from "../loop/run-turn.js";
import { recordMode } from "../loop/turn-state.js";
import type { TurnOptions } from "../loop/turn-options.js";
import { MemoryStore } from "../memory/store.js";
import { pickModel } from "../model/client.js";
import { loadAgents } from "../runtime/agents.js";
import { loadSkills, openRuntime, type Runtime, type RuntimeOptions } from "../runtime/open-runtime.js";
import { openSession, type SessionHandle } from "../sessions/session-handle.js";
import { SessionStore, type SessionBackend } from "../sessions/store.js";
import { planCompaction, sessionContextSize } from "../sessions/compaction.js";
import type { SkillLoader } from "../skills/loader.js";
import type { AgentConfig, EventSink, TurnResult } from "../types.js";
import { DEFAULT_AGENT_ID, resolveAgent } from "./routing.js";

/** What `openAssistant` takes: a runtime's options (its `store` a full backend), the default agent, and every turn's settings. */
export interface AssistantOptions extends Omit<RuntimeOptions, "store" | "agents" | "skills" | "memory"> {
  workspace: string;
  /** The sessions; default the workspace's files. A backend given is left open by `close()`. */
  store?: SessionBackend;
  /** `--agent`: the agent of messages that carry no prefix. */
  defaultAgent?: string;
  /** Text added to the end of every agent's system prompt (the CLI's --append-system-prompt). */
  appendSystemPrompt?: string;
  /** Settings of every turn (budgets, hooks, thinking...); a message's own win over them. */
  turn?: Omit<TurnOptions, "runtime" | "workspace" | "client">;
}

/** What one message may set: its session (default `agent:<agent>:main`), signal, events, approver (cron's refuses), and its turn's settings over the assistant's and SOUL.md's. */
export interface SendOptions {
  sessionKey?: string;
  signal?: AbortSignal;
  onEvent?: EventSink;
  approver?: Approver;
  turn?: Partial<Pick<TurnOptions, "model" | "thinking" | "effort" | "toolChoice" | "output" | "outputRetries" | "maxBudgetUsd" | "cacheTtl">>;
}

export interface Assistant {
  workspace: string;
  agents: Record<string, AgentConfig>;
  skills: SkillLoader;
  memory: MemoryStore;
  sessions: SessionBackend;
  runtime: Runtime;
  /** The agent a message goes to and the message without its prefix. */
  route(text: string): { agent: AgentConfig; text: string };
  /** The default session key of an agent. */
  sessionKeyFor(agentId: string): string;
  /** Routes the message and runs one turn in the runtime, with the session's durable inbox (steering). */
  send(text: string, options?: SendOptions): Promise<TurnResult>;
  /** The permission mode now: what `setPermissionMode` set, or what exit_plan_mode chose since. */
  readonly permissionMode: PermissionMode;
  /** Sets the mode of every turn of this assistant, a running one included, from its next tool call. Only the user calls it. */
  setPermissionMode(mode: PermissionMode): void;
  /** Records the mode now in an existing session no turn is running in (a REPL's /mode between turns). Never throws. */
  recordPermissionMode(sessionKey: string, agentId: string): Promise<void>;
  /** Adds a steering message to the durable inbox of `sessionKey`; resolves to its id once stored. Throws SessionError. */
  steer(sessionKey: string, text: string): Promise<string>;
  /** Compacts a session now (keeping its last turn); resolves to one line saying what happened. */
  compact(sessionKey: string, agentId: string, onEvent?: EventSink): Promise<string>;
  /** Releases what the assistant opened (memory, its own sessions); never what it was given. Never rejects. */
  close(): Promise<void>;
}

/** Opens the workspace: agents and skills loaded once, one runtime for every turn. Throws ConfigError (no credentials, no agent). */
export async function openAssistant(opts: AssistantOptions): Promise<Assistant> {
  const { defaultAgent: wanted, turn: every, store: given, appendSystemPrompt, ...runtimeOptions } = opts;
  const warn = opts.onWarning ?? (() => {});
  const [loaded, skills] = await Promise.all([loadAgents(opts.workspace, { onWarning: warn, knownTools: (opts.tools ?? []).map((tool) => tool.name) }), loadSkills(opts.workspace, warn)]);
  // The text to append, after every agent's prompt and a blank line.
  const extra = appendSystemPrompt?.trim();
  const agents = extra ? Object.fromEntries(Object.entries(loaded).map(([id, a]) => [id, { ...a, prompt: `${a.prompt.trimEnd()}\n\n${extra}` }])) : loaded;
  const defaultAgent = wanted ?? DEFAULT_AGENT_ID;
  if (!agents[defaultAgent]) throw new ConfigError(`no agent "${defaultAgent}" in ${join(opts.workspace, "agents")} (available: ${Object.keys(agents).join(", ")})`);
  const memory = MemoryStore.forWorkspace(opts.workspace);
  const sessions = given ?? new SessionStore(join(opts.workspace, "sessions"), { ...(opts.clock && { clock: opts.clock }), onWarning: warn });
  const runtime = await openRuntime({ ...runtimeOptions, store: sessions, agents, skills, memory });
  const route = (text: string): { agent: AgentConfig; text: string } => {
    const [id, rest] = resolveAgent(text, agents, defaultAgent);
    return { agent: agents[id]!, text: rest };
  };
  const sessionKeyFor = (agentId: string): string => `agent:${agentId}:main`;
  return {
    workspace: opts.workspace, agents, skills, memory, sessions, runtime, route, sessionKeyFor,
    get permissionMode() {
      return runtime.modes.mode;
    },
    setPermissionMode(mode) {
      runtime.modes.mode = mode;
    },
    async recordPermissionMode(sessionKey, agentId) {
      try {
        if (!(await sessions.exists(sessionKey))) return;
        await inSession(runtime, sessions, sessionKey, agentId, (session) => recordMode(runtime.modes.mode, session, () => {}, "user"));
      } catch (error) {
        warn(`could not record the permission mode in ${sessionKey} (${messageOf(error)})`);
      }
    },
    steer: (sessionKey, text) => sessions.addSteer(sessionKey, text),
    async send(text, send = {}) {
      const { agent, text: message } = route(text);
      const sessionKey = send.sessionKey ?? sessionKeyFor(agent.id);
      return runAgentTurn(sessionKey, message, agent, {
        ...every,
        ...send.turn,
        runtime,
        inbox: every?.inbox ?? sessions.inbox(sessionKey, { onWarning: warn }),
        ...(send.approver !== undefined && { approver: send.approver }),
        ...(send.signal !== undefined && { signal: send.signal }),
        // Every turn's sink (telemetry) and the message's own both hear the events.
        ...((every?.onEvent ?? send.onEvent) && { onEvent: (event) => (every?.onEvent?.(event), send.onEvent?.(event)) }),
      });
    },
    compact: (sessionKey, agentId, onEvent) => compactNow(runtime, sessions, agents[agentId] ?? agents[defaultAgent]!, sessionKey, onEvent),
    async close() {
      memory.close();
      await runtime.close();
      if (!given) await sessions.close();
    },
  };
}

/** Compacts a session now, keeping nothing verbatim beyond its last turn; one line saying what happened. */
async function compactNow(runtime: Runtime, sessions: SessionBackend, agent: AgentConfig, sessionKey: string, onEvent: EventSink | undefined): Promise<string> {
  const compacted = await inSession(runtime, sessions, sessionKey, agent.id, async (session) => {
    // Compaction keeps the last turn whole (keepTokens 0 keeps no more): a session that is only that turn has nothing to compact.
    if (planCompaction(session.session.records, { keepTokens: 0 }) === null) return "Nothing to compact yet: compaction keeps the last turn whole, and this session has no earlier one.";
    const model = pickModel(agent.model, runtime.settings.model);
    const outcome = await compactSession({
      client: runtime.client, model, session, tokensBefore: sessionContextSize(session.session), reason: "requested", keepTokens: 0,
      signal: new AbortController().signal, emit: onEvent ?? (() => {}), now: () => runtime.clock.now(),
    });
    if (!outcome.compacted) return `Not compacted: ${outcome.reason}.`;
    return `Compacted ${sessionKey}: the model now sees ${session.session.messages.length} messages, the summary first.`;
  });
  return typeof compacted === "string" ? compacted : `Not compacted: ${compacted.error ?? "interrupted"}.`;
}

/** Runs `work` on a session under its lock, released after; or resolves to why it could not be opened. */
async function inSession<T>(runtime: Runtime, sessions: SessionBackend, key: string, agentId: string, work: (session: SessionHandle) => Promise<T>): Promise<T | { error?: string }> {
  const opened = await openSession(sessions, key, { agentId, clock: runtime.clock });
  if (opened.status !== "open") return opened.status === "unreadable" ? { error: opened.error } : {};
  return work(opened.handle).finally(() => opened.handle.release());
}
