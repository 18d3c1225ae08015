// Paths as the OS will see them (.., symlinks, files not created yet) and how they stand against the allowed roots.
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { fileContentSecretReason } from "./secret-content.js";
import { pathReason, repositoryConfigReason } from "./secret-paths.js";

const MAX_SYMLINK_HOPS = 40;

/**
 * The real path `path` (absolute) refers to: symlinks resolved, `..` applied.
 * For a path that does not exist yet, the deepest existing ancestor is resolved
 * and the rest appended; a dangling symlink is followed to where it points, so
 * a link inside a root cannot smuggle a new file outside it. Synchronous: each step is
 * one metadata call of microseconds, where a trip through libuv's thread pool costs a
 * tool call about 0.3 ms of waiting. Throws what resolving fails with (ELOOP, EACCES).
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
    if (isSymbolicLink(current) && hops < MAX_SYMLINK_HOPS) {
      const target = resolve(dirname(current), readlinkSync(current));
      return resolveRealPath(join(target, ...missing.reverse()), hops + 1);
    }
    const parent = dirname(current);
    if (parent === current) return resolve(path);
    missing.push(basename(current));
    current = parent;
  }
}

function isSymbolicLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** True when `path` is `root` or inside it (both real paths). */
export function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Why a path inside the roots still needs the user: secrets by name (read or write); for reads,
 * a repository's configuration and secrets by content (a regular file whose first bytes hold a
 * key, a token, a credential URL or a password assignment, whatever its name); and writes into
 * `.git/` (hooks, config), onto `protectedPaths` such as the approvals file (which would let the
 * model approve its own commands), or onto configuration a later run would obey (`plantedConfigReason`).
 */
export function sensitivePathReason(path: string, access: "read" | "write", protectedPaths: readonly string[], protectedDirs: readonly string[] = []): string | null {
  const secret = pathReason(path);
  if (secret !== null) return secret.replace(/^reads /, access === "read" ? "reads " : "writes ");
  if (access !== "write") return repositoryConfigReason(path) ?? contentReason(path);
  // Any case: on a case-insensitive file system `.GIT/config` is the repository's config.
  if (path.split(sep).some((s) => s.toLowerCase() === ".git")) return "writes inside a .git folder, whose hooks and config can run programs";
  if (protectedPaths.some((p) => path === p || path.startsWith(`${p}.`))) return "writes the approvals file, which decides what runs unasked";
  // Session files and their inboxes speak for the user: a line written there would be read back as the user's words.
  if (protectedDirs.some((d) => path === d || path.startsWith(`${d}${sep}`))) return "writes the workspace's session files, which hold what the user said (a planted line would speak for them)";
  return plantedConfigReason(path);
}

/** The content check of a file about to be read; a file the gate cannot open, the reader cannot either, and says so itself. */
function contentReason(path: string): string | null {
  try {
    const why = fileContentSecretReason(path);
    return why === null ? null : `reads ${path}, and ${why}`;
  } catch {
    return null;
  }
}

/** Files any miniclaw (or another agent tool) started here later would obey: approvals and server lists. */
const CONFIG_ANYWHERE = /^(exec-approvals\.json|\.?mcp\.json)(\..*)?$/i;
/** Workspace files a later run with this folder as its workspace would obey. */
const WORKSPACE_CONFIG = /^cron\.json(\..*)?$/i;

/**
 * A write that plants configuration for a later run: any `exec-approvals.json` (a run with
 * another `--workspace` must not be able to approve commands for the next plain run), any
 * MCP server list (its commands are started as programs), and the cron file
 * of any folder named `workspace`. Siblings (`.lock`, `.tmp`) count too; case is ignored,
 * as some file systems do.
 */
function plantedConfigReason(path: string): string | null {
  const segments = path.split(sep);
  const name = segments[segments.length - 1] ?? "";
  if (CONFIG_ANYWHERE.test(name)) return `writes ${name}, configuration that decides what a later run executes unasked`;
  if (segments[segments.length - 2]?.toLowerCase() === "workspace" && WORKSPACE_CONFIG.test(name)) {
    return `writes ${name} of a workspace, which a later run would obey`;
  }
  return null;
}
