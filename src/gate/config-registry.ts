// The configuration a later run obeys, by path: the actual workspace's files, not folder names. Writes to them always ask.
import { join, sep } from "node:path";

/** Files of a workspace that decide what later runs do or may reach. */
const CONFIG_FILES = ["exec-approvals.json", "cron.json", "mcp.json", "settings.json", join("cron", "state.json")];
/** Folders of a workspace whose every file is such configuration: agents' SOUL.md, skills, output schemas. */
const CONFIG_DIRS = ["agents", "skills", "schemas"];

/** The configuration of `workspace` as absolute paths: what widens what the model may reach (approvals, cron.json and its state, mcp.json, settings.json, agents, skills, schemas). */
export function configurationPaths(workspace: string): string[] {
  return [...CONFIG_FILES, ...CONFIG_DIRS].map((name) => join(workspace, name));
}

/** Why writing `path` (a real path) changes configuration of the registry, or null. Siblings such as `cron.json.tmp` count. */
export function configurationReason(path: string, registry: readonly string[]): string | null {
  const hit = registry.find((entry) => path === entry || path.startsWith(`${entry}${sep}`) || path.startsWith(`${entry}.`));
  return hit === undefined ? null : `writes ${path}, configuration of the workspace that a later run obeys (what it runs, or what the model may reach)`;
}
