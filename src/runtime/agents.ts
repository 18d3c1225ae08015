// Agents from `agents/<id>/SOUL.md`: frontmatter checked with zod, the body as the agent's prompt.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../errors.js";
import { parseFrontmatter } from "../skills/frontmatter.js";
import type { AgentConfig } from "../types.js";

/** The file that defines an agent, inside `agents/<id>/`. */
export const SOUL_FILE = "SOUL.md";

const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const KNOWN_FIELDS = new Set(["name", "model", "prefix", "tools", "max_tokens"]);

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
});

/** Options of `loadAgents`. */
export interface LoadAgentsOptions {
  /** Receives one line per agent that failed to load or per ignored field; must not throw. */
  onWarning?: (message: string) => void;
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
  const result = soulSchema.safeParse(parsed.data);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue?.path.map(String).join(".") || "frontmatter";
    throw new ConfigError(`${file}: field "${field}" ${issue?.message ?? "is invalid"}`);
  }
  const prompt = parsed.body.trim();
  if (prompt === "") throw new ConfigError(`${file}: the body (the agent's system prompt, after the frontmatter) is empty`);
  for (const field of Object.keys(parsed.data)) {
    if (!KNOWN_FIELDS.has(field)) onWarning?.(`${file}: unknown field "${field}" ignored`);
  }
  const soul = result.data;
  return {
    id,
    name: soul.name,
    prompt,
    ...(soul.model !== undefined && { model: soul.model }),
    ...(soul.prefix !== undefined && { prefix: soul.prefix }),
    ...(soul.tools !== undefined && { tools: soul.tools }),
    ...(soul.max_tokens !== undefined && { maxTokens: soul.max_tokens }),
  };
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
 * A bad agent is reported through `onWarning` (file and field named) and skipped; the others
 * still load. A prefix already taken by an earlier agent is dropped with a warning.
 * Throws `ConfigError` when no agent loads at all, carrying every reason.
 */
export async function loadAgents(workspaceDir: string, options: LoadAgentsOptions = {}): Promise<Record<string, AgentConfig>> {
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
    const text = await readFile(file, "utf8").catch(() => undefined);
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
      agents[id] = agent;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      problems.push(message);
      warn(`agent "${id}" not loaded: ${message}`);
    }
  }
  if (Object.keys(agents).length === 0) {
    const reasons = problems.length > 0 ? `: ${problems.join("; ")}` : "";
    throw new ConfigError(`No agent could be loaded from ${agentsDir} (each needs ${SOUL_FILE} in agents/<id>/)${reasons}`);
  }
  return agents;
}
