// Agents from `agents/<id>/SOUL.md`: frontmatter checked with zod, the body as the agent's prompt.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import * as z from "zod";
import { safeSink } from "../deps.js";
import { ConfigError, messageOf, orConfigError } from "../errors.js";
import { checkConfig } from "../fs/config-file.js";
import { readRegularText } from "../fs/regular-file.js";
import { checkSettings, parseEffort, parseMaxIterations, parseThinking, parseToolChoice } from "../model/settings.js";
import { parseFrontmatter } from "../skills/frontmatter.js";
import type { AgentConfig, WebSettings } from "../types.js";
import { settingOf } from "./runtime-options.js";
import { checkWorkspace, ensureWorkspace } from "./workspace.js";

/** The file that defines an agent, inside `agents/<id>/`. */
export const SOUL_FILE = "SOUL.md";
const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
/** The API's server tools, offered to agents whose SOUL.md sets `web` (and kept by a `tools:` list only when named). */
export const SERVER_TOOL_NAMES: readonly string[] = ["web_search", "web_fetch"];
/** The tools every agent has unless its SOUL.md narrows them (a test checks it against a turn's tools); MCP names (`mcp__*`) are not checked at load. */
export const BUILTIN_TOOL_NAMES: readonly string[] = ["run_command", "read_file", "write_file", "edit_file", "save_memory", "memory_search", "load_skill"];
/** A list in YAML or as one string of names separated by spaces or commas. */
const names = <T extends z.ZodType>(item: T, error: string) => z.preprocess((v) => (typeof v === "string" ? v.split(/[\s,]+/).filter(Boolean) : v), z.array(item, { error }));

/** The given ones of `value`'s fields: an absent setting is absent, not `undefined`. */
function defined<T extends Record<string, unknown>>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** What `web: true` offers: a few searches and fetches per request, each page cut to a size that leaves room to work. */
const DEFAULT_WEB = { search: { maxUses: 5 }, fetch: { maxUses: 5, maxContentTokens: 20_000 } };
const count = (what: string) => z.number({ error: `must be a whole number of ${what}` }).int(`must be a whole number of ${what}`).positive("must be greater than 0").optional();
const domains = z.array(z.string().trim().min(1), { error: "must be a list of domains, such as [docs.python.org]" }).optional();
/** The API takes one list or the other, never both: refused here, at load, rather than by every request. */
const oneList = (tool: { allowed_domains?: string[] | undefined; blocked_domains?: string[] | undefined }): boolean => !(tool.allowed_domains && tool.blocked_domains);
const NOT_BOTH = { message: "may give allowed_domains or blocked_domains, not both" };
const search = z
  .strictObject({ max_uses: count("searches"), allowed_domains: domains, blocked_domains: domains }, { error: "must be true, false or { max_uses, allowed_domains, blocked_domains }" })
  .refine(oneList, NOT_BOTH);
const fetch = z
  .strictObject(
    { max_uses: count("fetches"), max_content_tokens: count("tokens"), allowed_domains: domains, blocked_domains: domains },
    { error: "must be true, false or { max_uses, max_content_tokens, allowed_domains, blocked_domains }" },
  )
  .refine(oneList, NOT_BOTH);
const onOff = <T extends z.ZodType>(tool: T) => z.union([z.boolean(), z.null(), tool]).optional();
const WEB_SHAPE = "must be true, false or { search: {...}, fetch: {...} }";

/** SOUL.md's `web`: `true | false`, or `{ search, fetch }` where each is `true`, `false` or its settings; a tool left out is off. */
const webField = z.union([z.boolean(), z.strictObject({ search: onOff(search), fetch: onOff(fetch) }, { error: WEB_SHAPE })], { error: WEB_SHAPE }).transform((web): WebSettings => {
  if (web === false) return {};
  if (web === true) return { ...DEFAULT_WEB };
  const s = web.search === true ? {} : web.search;
  const f = web.fetch === true ? {} : web.fetch;
  return {
    ...(s && { search: { ...DEFAULT_WEB.search, ...defined({ maxUses: s.max_uses, allowedDomains: s.allowed_domains, blockedDomains: s.blocked_domains }) } }),
    ...(f && { fetch: { ...DEFAULT_WEB.fetch, ...defined({ maxUses: f.max_uses, maxContentTokens: f.max_content_tokens, allowedDomains: f.allowed_domains, blockedDomains: f.blocked_domains }) } }),
  };
});

const soulSchema = z.object({
  name: z.string({ error: (issue) => (issue.input === undefined ? "is required: the agent's display name" : "must be text") }).trim().min(1, "must not be empty"),
  model: z.string({ error: "must be a model id" }).trim().min(1, "must not be empty").optional(),
  fallback_model: z.string({ error: "must be a model id" }).trim().min(1, "must not be empty").optional(),
  prefix: z.string({ error: 'must be a routing prefix such as "/research"' }).regex(/^\/[^\s/]+$/, 'must start with "/" and be one word, such as "/research"').optional(),
  tools: names(z.string({ error: "must hold tool names" }).trim().min(1, "must not hold an empty name"), "must be a list of tool names, such as [read_file, memory_search]").optional(),
  max_tokens: count("tokens"),
  max_iterations: settingOf(parseMaxIterations).optional(),
  thinking: settingOf(parseThinking).optional(),
  effort: settingOf(parseEffort).optional(),
  tool_choice: settingOf(parseToolChoice).optional(),
  web: webField.optional(),
  delegates: names(z.string().regex(AGENT_ID, "must be agent ids (folder names under agents/)"), "must be a list of agent ids, such as [researcher]").optional(),
});

/** Options of `loadAgents`. */
export interface LoadAgentsOptions {
  /** Receives one line per agent that failed to load, per ignored field or per unknown tool name; must not throw. */
  onWarning?: (message: string) => void;
  /** Names of your own tools (`defineTool`) that a SOUL.md `tools:` may list besides the built-in ones. */
  knownTools?: readonly string[];
  /** Create a missing or empty workspace from the templates first (default true). */
  create?: boolean;
}

/** Parses one SOUL.md text into an agent. Throws ConfigError naming the file and the field: a bad frontmatter field, YAML that does not parse, an empty body. */
function parseSoul(id: string, text: string, file: string, onWarning: (message: string) => void): AgentConfig {
  if (!text.trim()) throw new ConfigError(`${file}: the file is empty: start it with a --- block that gives at least "name", then the prompt`);
  const parsed = orConfigError(() => parseFrontmatter(text), (why) => `${file}: frontmatter cannot be parsed: ${why.split("\n")[0]}`);
  if (!parsed.hasFrontmatter) throw new ConfigError(`${file}: no frontmatter: start the file with a --- block that gives at least "name"`);
  const soul = checkConfig(soulSchema, parsed.data, file);
  const prompt = parsed.body.trim();
  if (prompt === "") throw new ConfigError(`${file}: the body (the agent's system prompt, after the frontmatter) is empty`);
  for (const field of Object.keys(parsed.data)) if (!(field in soulSchema.shape)) onWarning(`${file}: unknown field "${field}" ignored`);
  const { name, model, fallback_model: fallbackModel, prefix, tools, max_tokens: maxTokens, max_iterations: maxIterations, thinking, effort, tool_choice: toolChoice, web, delegates } = soul;
  const clash = checkSettings(defined({ thinking, maxTokens, toolChoice }));
  if (clash) throw new ConfigError(`${file}: ${clash[0]}: ${clash[1]}`);
  const given = defined({ model, fallbackModel, prefix, tools, maxTokens, maxIterations, thinking, effort, toolChoice });
  return { id, name, prompt, ...given, ...(web && (web.search || web.fetch) && { web }), ...(delegates && delegates.length > 0 && { delegates }) };
}

/**
 * Loads `<workspaceDir>/agents/<id>/SOUL.md`, keyed by id, in order, creating a missing workspace from the templates unless `create` is false. A bad agent,
 * a taken prefix, an unknown `tools:` name are warnings (the agent skipped, the prefix dropped). Throws ConfigError when none loads, saying why or how to add one.
 */
export async function loadAgents(workspaceDir: string, options: LoadAgentsOptions = {}): Promise<Record<string, AgentConfig>> {
  await (options.create === false ? checkWorkspace(workspaceDir) : ensureWorkspace(workspaceDir));
  const agentsDir = join(workspaceDir, "agents");
  const warn = safeSink(options.onWarning);
  const agents: Record<string, AgentConfig> = {};
  const problems: string[] = [];
  const prefixes = new Map<string, string>();
  const known = [...BUILTIN_TOOL_NAMES, ...SERVER_TOOL_NAMES, ...(options.knownTools ?? [])];
  const entries = await readdir(agentsDir, { withFileTypes: true }).catch(() => []);
  for (const id of entries.filter((e) => e.isDirectory() && !e.name.startsWith(".")).map((e) => e.name).sort()) {
    const file = join(agentsDir, id, SOUL_FILE);
    const text = await readRegularText(file).catch(() => undefined);
    if (text === undefined) continue;
    try {
      if (!AGENT_ID.test(id)) throw new ConfigError(`${file}: folder name "${id}" must be letters, digits, "-" and "_"`);
      const agent = parseSoul(id, text, file, warn);
      const owner = agent.prefix === undefined ? undefined : prefixes.get(agent.prefix);
      if (owner !== undefined) warn(`${file}: prefix "${agent.prefix}" is already used by agent "${owner}"; ignored here`);
      if (owner !== undefined) delete agent.prefix;
      if (agent.prefix !== undefined) prefixes.set(agent.prefix, id);
      // A typo in `tools:` silently removes the tool: say so, once per name.
      for (const name of new Set(agent.tools ?? [])) if (!known.includes(name) && !name.startsWith("mcp__")) warn(`${file}: tools: no tool named "${name}" (known tools: ${known.join(", ")})`);
      agents[id] = agent;
    } catch (error) {
      problems.push(messageOf(error));
      warn(`agent "${id}" not loaded: ${messageOf(error)}`);
    }
  }
  for (const agent of Object.values(agents)) {
    for (const id of agent.delegates ?? []) {
      const why = id === agent.id ? " (an agent cannot delegate to itself)" : agents[id] === undefined ? ` (agents: ${Object.keys(agents).join(", ")})` : undefined;
      if (why !== undefined) warn(`${join(agentsDir, agent.id, SOUL_FILE)}: delegates: no agent "${id}" to hand tasks to${why}`);
    }
  }
  if (Object.keys(agents).length > 0) return agents;
  if (problems.length > 0) throw new ConfigError(`No agent could be loaded from ${agentsDir} (each needs ${SOUL_FILE} in agents/<id>/): ${problems.join("; ")}`);
  throw new ConfigError(
    `The workspace ${workspaceDir} has no agent: each agent is a folder agents/<id>/ holding ${SOUL_FILE}, and ${agentsDir} has none. ` +
      `To add one, create ${join(agentsDir, "main", SOUL_FILE)} starting with a frontmatter block ("---", a line "name: Assistant", "---") ` +
      `followed by the agent's instructions; or run \`miniclaw init ${workspaceDir}\` to add the default agents (it keeps every file that exists).`,
  );
}
