// The path rules: paths as the OS will see them (.., symlinks, files not created yet), how they stand against the roots, and the configuration writes always ask about.
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { orFallback } from "../errors.js";
import type { Verdict } from "./context.js";
import { isProcessSecretPath, pathReason, repositoryConfigReason, fileContentSecretReason } from "./secret-paths.js";

const MAX_SYMLINK_HOPS = 40;

/**
 * The real path `path` refers to: symlinks resolved (a dangling one followed, so a link cannot smuggle a new file out of a root), `..` applied, a part not
 * created yet appended. Synchronous: a few metadata calls cost less than the thread pool. Throws ELOOP, EACCES...
 */
export function resolveRealPath(path: string, hops = 0): string {
  const missing: string[] = [];
  let current = resolve(path);
  for (;;) {
    try {
      const real = realpathSync.native(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
    }
    const link = orFallback(() => lstatSync(current).isSymbolicLink(), false);
    if (link && hops < MAX_SYMLINK_HOPS) return resolveRealPath(join(resolve(dirname(current), readlinkSync(current)), ...missing.reverse()), hops + 1);
    const parent = dirname(current);
    if (parent === current) return resolve(path);
    missing.push(basename(current));
    current = parent;
  }
}

/** The configuration of a workspace, files and folders whose every file counts: what widens what the model may reach. */
const CONFIG_ENTRIES = ["exec-approvals.json", "cron.json", "mcp.json", "settings.json", join("cron", "state.json"), "agents", "skills", "schemas"];

/** The configuration of `workspace` as absolute paths: writes to it are asked in every mode but bypassPermissions. */
export function configurationPaths(workspace: string): string[] {
  return CONFIG_ENTRIES.map((name) => join(workspace, name));
}

/** The folders the path rules judge against: `roots` are used unasked; the approvals file, `protectedDirs` (sessions) and `configuration` are never written unasked. */
export interface PathFolders {
  cwd: string;
  roots: readonly string[];
  approvalsPath: string;
  protectedDirs?: readonly string[];
  configuration?: readonly string[];
}

type Resolved = { roots: string[]; approvals: string; protectedDirs: string[]; configuration: string[] };

/** The path rules: /proc never; inside the roots and not sensitive, reads are safe and writes act; anything else needs the user. Folders are resolved at the first path judged. */
export function pathRules(folders: PathFolders): (path: string, write: boolean) => Verdict {
  const settled = (path: string): string => orFallback(() => resolveRealPath(resolve(folders.cwd, path)), resolve(folders.cwd, path));
  let resolved: Resolved | undefined;
  return (path, write) => {
    const real = resolveRealPath(resolve(folders.cwd, path));
    const base = { readOnly: !write, subject: { kind: "path", access: write ? "write" : "read", path: real } as const, path: real };
    if (isProcessSecretPath(real)) return { ...base, kind: "never", reason: "/proc holds process environments, API key included" };
    resolved ??= {
      roots: folders.roots.map(settled),
      approvals: settled(folders.approvalsPath),
      protectedDirs: (folders.protectedDirs ?? []).map(settled),
      configuration: (folders.configuration ?? []).map(settled),
    };
    const sensitive = sensitiveReason(real, write, resolved);
    if (sensitive === null && resolved.roots.some((root) => isInside(real, root))) return { ...base, kind: write ? "act" : "safe", reason: "" };
    return { ...base, kind: "needs", reason: sensitive ?? `it is outside the allowed folders (${resolved.roots.join(", ")})` };
  };
}

export function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** Why a path inside the roots still needs the user: configuration and secrets; for reads, by content too; writes into `.git/`, the approvals file or the sessions. */
function sensitiveReason(path: string, write: boolean, folders: Resolved): string | null {
  // Siblings such as `cron.json.tmp` count.
  if (write && folders.configuration.some((entry) => path === entry || path.startsWith(`${entry}${sep}`) || path.startsWith(`${entry}.`))) {
    return `writes ${path}, configuration of the workspace that a later run obeys (what it runs, or what the model may reach)`;
  }
  const secret = pathReason(path);
  if (secret !== null) return write ? secret.replace(/^reads /, "writes ") : secret;
  if (!write) return repositoryConfigReason(path) ?? contentReason(path);
  // Any case: on a case-insensitive file system `.GIT/config` is the repository's config.
  if (path.split(sep).some((s) => s.toLowerCase() === ".git")) return "writes inside a .git folder, whose hooks and config can run programs";
  if (path === folders.approvals || path.startsWith(`${folders.approvals}.`)) return "writes the approvals file, which decides what runs unasked";
  if (folders.protectedDirs.some((d) => path === d || path.startsWith(`${d}${sep}`))) return "writes the workspace's session files, which hold what the user said (a planted line would speak for them)";
  return plantedConfigReason(path);
}

/** The content check of a file about to be read; a file the gate cannot open, the reader cannot either, and says so itself. */
function contentReason(path: string): string | null {
  const why = orFallback(() => fileContentSecretReason(path), null);
  return why === null ? null : `reads ${path}, and ${why}`;
}

/** Files any miniclaw (or another agent tool) started here later would obey: approvals and server lists. */
const CONFIG_ANYWHERE = /^(exec-approvals\.json|\.?mcp\.json)(\..*)?$/i;
/** A project's instructions to agents, which every later run in it reads into its system prompt. */
const PROJECT_INSTRUCTIONS = /^(agents|claude)(\.local)?\.md(\..*)?$/i;
/** Workspace files a later run with this folder as its workspace would obey. */
const WORKSPACE_CONFIG = /^cron\.json(\..*)?$/i;

/** A write that plants configuration for any later run: any approvals file, MCP server list or AGENTS.md, the cron file of any folder named `workspace`; siblings and any case. */
function plantedConfigReason(path: string): string | null {
  const segments = path.split(sep);
  const name = segments[segments.length - 1] ?? "";
  if (CONFIG_ANYWHERE.test(name)) return `writes ${name}, configuration that decides what a later run executes unasked`;
  if (PROJECT_INSTRUCTIONS.test(name)) return `writes ${name}, instructions every later run in this project takes into its system prompt`;
  if (segments[segments.length - 2]?.toLowerCase() === "workspace" && WORKSPACE_CONFIG.test(name)) return `writes ${name} of a workspace, which a later run would obey`;
  return null;
}
