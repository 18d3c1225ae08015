// Agents from `agents/<id>/SOUL.md`: frontmatter checked with zod, the body as the agent's prompt.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import * as z from "zod";
import { ConfigError } from "../errors.js";
import { parseFrontmatter } from "../skills/frontmatter.js";
import { checkSettings, parseEffort, parseMaxIterations, parseThinking, parseToolChoice, type Parsed } from "../model/settings.js";
import type { AgentConfig } from "../types.js";
import { webField } from "./soul-web.js";
import { checkWorkspace, ensureWorkspace } from "./workspace.js";
import { readRegularText } from "../fs/regular-file.js";
import { checkConfig } from "../fs/config-file.js";

/** The file that defines an agent, inside `agents/<id>/`. */
export const SOUL_FILE = "SOUL.md";

const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const KNOWN_FIELDS = new Set(["name", "model", "prefix", "tools", "max_tokens", "max_iterations", "thinking", "effort", "web", "tool_choice", "delegates"]);

/** The API's server tools, offered to agents whose SOUL.md sets `web` (and kept by a `tools:` list only when named). */
export const SERVER_TOOL_NAMES: readonly string[] = ["web_search", "web_fetch"];

/**
 * The tools every agent has unless its SOUL.md narrows them (a test checks this list against
 * the tools a turn is given). Names from MCP servers (`mcp__*`) are only known once the servers
 * connect, so they are not checked at load.
 */
export const BUILTIN_TOOL_NAMES: readonly string[] = [
  "run_command", "read_file", "write_file", "edit_file", "save_memory", "memory_search", "load_skill",
];

const toolList = z.preprocess(
  (value) => (typeof value === "string" ? value.split(/[\s,]+/).filter(Boolean) : value),
  z.array(z.string({ error: "must hold tool names" }).trim().min(1, "must not hold an empty name"), {
    error: "must be a list of tool names, such as [read_file, memory_search]",
  }),
);

const soulSchema = z.object({
  name: z
    .string({ error: (issue) => (issue.input === undefined ? "is required: the agent's display name" : "must be text") })
    .trim()
    .min(1, "must not be empty"),
  model: z.string({ error: "must be a model id" }).trim().min(1, "must not be empty").optional(),
  prefix: z
    .string({ error: 'must be a routing prefix such as "/research"' })
    .regex(/^\/[^\s/]+$/, 'must start with "/" and be one word, such as "/research"')
    .optional(),
  tools: toolList.optional(),
  max_tokens: z
    .number({ error: "must be a whole number of tokens" })
    .int("must be a whole number of tokens")
    .positive("must be greater than 0")
    .optional(),
  max_iterations: setting(parseMaxIterations).optional(),
  thinking: setting(parseThinking).optional(),
  effort: setting(parseEffort).optional(),
  tool_choice: setting(parseToolChoice).optional(),
  web: webField.optional(),
  delegates: z
    .preprocess(
      (value) => (typeof value === "string" ? value.split(/[\s,]+/).filter(Boolean) : value),
      z.array(z.string().regex(AGENT_ID, "must be agent ids (folder names under agents/)"), { error: "must be a list of agent ids, such as [researcher]" }),
    )
    .optional(),
});

/** A field checked by one of the parsers that flags and options share, so each value means one thing everywhere. */
function setting<T>(parse: (raw: unknown) => Parsed<T>) {
  return z.unknown().transform((raw, ctx) => {
    const parsed = parse(raw);
    if (parsed.ok) return parsed.value;
    ctx.addIssue({ code: "custom", message: parsed.problem });
    return z.NEVER;
  });
}


/** Options of `loadAgents`. */
export interface LoadAgentsOptions {
  /** Receives one line per agent that failed to load, per ignored field or per unknown tool name; must not throw. */
  onWarning?: (message: string) => void;
  /** Names of your own tools (`defineTool`) that a SOUL.md `tools:` may list besides the built-in ones. */
  knownTools?: readonly string[];
  /** Create a missing or empty workspace from the templates first (default true). */
  create?: boolean;
}

/**
 * Parses one SOUL.md text into an agent. Throws `ConfigError` naming the file and the
 * field: a missing or bad frontmatter field, YAML that does not parse, or an empty body.
 */
export function parseSoul(id: string, text: string, file: string, onWarning?: (message: string) => void): AgentConfig {
  if (!text.trim()) throw new ConfigError(`${file}: the file is empty: start it with a --- block that gives at least "name", then the prompt`);
  let parsed;
  try {
    parsed = parseFrontmatter(text);
  } catch (error) {
    throw new ConfigError(`${file}: frontmatter cannot be parsed: ${(error as Error).message.split("\n")[0]}`);
  }
  if (!parsed.hasFrontmatter) {
    throw new ConfigError(`${file}: no frontmatter: start the file with a --- block that gives at least "name"`);
  }
  const soul = checkConfig(soulSchema, parsed.data, file);
  const prompt = parsed.body.trim();
  if (prompt === "") throw new ConfigError(`${file}: the body (the agent's system prompt, after the frontmatter) is empty`);
  for (const field of Object.keys(parsed.data)) {
    if (!KNOWN_FIELDS.has(field)) onWarning?.(`${file}: unknown field "${field}" ignored`);
  }
  const clash = checkSettings({
    ...(soul.thinking !== undefined && { thinking: soul.thinking }),
    ...(soul.max_tokens !== undefined && { maxTokens: soul.max_tokens }),
    ...(soul.tool_choice !== undefined && { toolChoice: soul.tool_choice }),
  });
  if (clash) throw new ConfigError(`${file}: ${clash[0]}: ${clash[1]}`);
  return {
    id,
    name: soul.name,
    prompt,
    ...(soul.model !== undefined && { model: soul.model }),
    ...(soul.prefix !== undefined && { prefix: soul.prefix }),
    ...(soul.tools !== undefined && { tools: soul.tools }),
    ...(soul.max_tokens !== undefined && { maxTokens: soul.max_tokens }),
    ...(soul.max_iterations !== undefined && { maxIterations: soul.max_iterations }),
    ...(soul.thinking !== undefined && { thinking: soul.thinking }),
    ...(soul.effort !== undefined && { effort: soul.effort }),
    ...(soul.tool_choice !== undefined && { toolChoice: soul.tool_choice }),
    ...(soul.web !== undefined && (soul.web.search || soul.web.fetch) && { web: soul.web }),
    ...(soul.delegates !== undefined && soul.delegates.length > 0 && { delegates: soul.delegates }),
  };
}

/** Warns once per tool name in `tools:` that no built-in or known tool has: a typo there silently removes the tool. */
function warnUnknownTools(agent: AgentConfig, file: string, knownTools: readonly string[], warn: (message: string) => void): void {
  const known = [...BUILTIN_TOOL_NAMES, ...SERVER_TOOL_NAMES, ...knownTools];
  for (const name of new Set(agent.tools ?? [])) {
    if (known.includes(name) || name.startsWith("mcp__")) continue;
    warn(`${file}: tools: no tool named "${name}" (known tools: ${known.join(", ")})`);
  }
}

/** The paragraph a person reads when a workspace has no agent at all: how to add one. */
function noAgentsMessage(workspaceDir: string, agentsDir: string): string {
  return (
    `The workspace ${workspaceDir} has no agent: each agent is a folder agents/<id>/ holding ${SOUL_FILE}, and ${agentsDir} has none. ` +
    `To add one, create ${join(agentsDir, "main", SOUL_FILE)} starting with a frontmatter block ("---", a line "name: Assistant", "---") ` +
    `followed by the agent's instructions; or run \`miniclaw init ${workspaceDir}\` to add the default agents (it keeps every file that exists).`
  );
}

async function agentIds(agentsDir: string): Promise<string[]> {
  try {
    const entries = await readdir(agentsDir, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

/**
 * Loads every agent of `<workspaceDir>/agents/<id>/SOUL.md`, keyed by folder name, in id order.
 * A workspace that does not exist yet or is an empty folder is first created from the templates
 * (the default agents `main` and `researcher`), unless `create` is false.
 * A bad agent is reported through `onWarning` (file and field named) and skipped; the others
 * still load. A prefix already taken by an earlier agent is dropped with a warning; a `tools:`
 * name that is neither built in nor in `knownTools` is kept, with a warning naming the known tools.
 * Throws `ConfigError` when no agent loads at all: carrying every reason, or saying how to add an agent.
 */
export async function loadAgents(workspaceDir: string, options: LoadAgentsOptions = {}): Promise<Record<string, AgentConfig>> {
  await (options.create === false ? checkWorkspace(workspaceDir) : ensureWorkspace(workspaceDir));
  const agentsDir = join(workspaceDir, "agents");
  const warn = (message: string): void => {
    try {
      options.onWarning?.(message);
    } catch {
      // A throwing sink must not stop the other agents from loading.
    }
  };
  const agents: Record<string, AgentConfig> = {};
  const problems: string[] = [];
  const prefixes = new Map<string, string>();
  for (const id of await agentIds(agentsDir)) {
    const file = join(agentsDir, id, SOUL_FILE);
    const text = await readRegularText(file).catch(() => undefined);
    if (text === undefined) continue;
    try {
      if (!AGENT_ID.test(id)) throw new ConfigError(`${file}: folder name "${id}" must be letters, digits, "-" and "_"`);
      const agent = parseSoul(id, text, file, warn);
      const owner = agent.prefix === undefined ? undefined : prefixes.get(agent.prefix);
      if (agent.prefix !== undefined && owner !== undefined) {
        warn(`${file}: prefix "${agent.prefix}" is already used by agent "${owner}"; ignored here`);
        delete agent.prefix;
      }
      if (agent.prefix !== undefined) prefixes.set(agent.prefix, id);
      warnUnknownTools(agent, file, options.knownTools ?? [], warn);
      agents[id] = agent;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      problems.push(message);
      warn(`agent "${id}" not loaded: ${message}`);
    }
  }
  for (const agent of Object.values(agents)) {
    for (const id of agent.delegates ?? []) {
      if (agents[id] === undefined || id === agent.id) warn(`${join(agentsDir, agent.id, SOUL_FILE)}: delegates: no agent "${id}" to hand tasks to${id === agent.id ? " (an agent cannot delegate to itself)" : ` (agents: ${Object.keys(agents).join(", ")})`}`);
    }
  }
  if (Object.keys(agents).length === 0) {
    if (problems.length === 0) throw new ConfigError(noAgentsMessage(workspaceDir, agentsDir));
    throw new ConfigError(`No agent could be loaded from ${agentsDir} (each needs ${SOUL_FILE} in agents/<id>/): ${problems.join("; ")}`);
  }
  return agents;
}
