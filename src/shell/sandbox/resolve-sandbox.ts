// A policy's paths as they are on disk: real targets, missing paths dropped, and what the mounts cannot promise.
import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { orFallback, ToolError } from "../../errors.js";
import { isInside } from "../../gate/path-check.js";
import type { SandboxKind, SandboxPolicy } from "./sandbox-policy.js";

/** A path with every symlink resolved (mounts act on places), whether its last component is a link (replaceable), and its hard links (unhidden names). */
export interface PathInfo { real: string; type: "dir" | "file" | "other"; symlink: boolean; links: number }
/** The file-system reads resolution makes, injected so a test can show any layout: a path (null when missing), and a folder's files with other names. */
export interface PathInspector { inspect(path: string): PathInfo | null; linkedFiles(dir: string): string[] }
/** Files looked at per masked folder for other names: credential stores are small; a large one is not walked whole. */
const LINK_SCAN_LIMIT = 500;

/** The Node inspector; `linkedFiles` looks two levels down. */
export const nodePathInspector: PathInspector = {
  inspect(path) {
    return orFallback((): PathInfo => {
      const real = realpathSync(path);
      const stat = statSync(real);
      const type = stat.isDirectory() ? "dir" : stat.isFile() ? "file" : "other";
      return { real, type, symlink: lstatSync(path).isSymbolicLink(), links: stat.nlink };
    }, null);
  },
  linkedFiles(dir) {
    const found: string[] = [];
    let seen = 0;
    const walk = (folder: string, depth: number): void => {
      for (const entry of orFallback(() => readdirSync(folder, { withFileTypes: true }), [])) {
        if (++seen > LINK_SCAN_LIMIT) return;
        const path = join(folder, entry.name);
        if (entry.isDirectory() && depth < 2) walk(path, depth + 1);
        else if (entry.isFile() && statSync(path, { throwIfNoEntry: false })?.nlink !== 1) found.push(path);
      }
    };
    walk(dir, 1);
    return found;
  },
};

/**
 * A policy as mounts: paths real and existing, nothing nested under what hides it; `pinned` folders cannot be renamed away, `unprotected`
 * read-only paths had only the root to protect them, `warnings` say what cannot be hidden.
 */
export interface ResolvedSandbox {
  kind: SandboxKind;
  cwd: string;
  visible: string[];
  writable: string[];
  tmpdir: string;
  pinned: string[];
  readOnly: string[];
  maskedFiles: string[];
  maskedDirs: string[];
  privateDirs: string[];
  network: boolean;
  unixSockets: boolean;
  unprotected: string[];
  warnings: string[];
}

/** Resolves `policy` with `inspector`'s reads. Throws a ToolError when the working folder or TMPDIR does not exist. */
export function resolveSandbox(policy: SandboxPolicy, inspector: PathInspector = nodePathInspector): ResolvedSandbox {
  const real = (path: string): string | null => inspector.inspect(path)?.real ?? null;
  const existing = (path: string, what: string): string => {
    const found = real(path);
    if (found === null) throw new ToolError(`cannot sandbox the command: ${what} ${path} does not exist`);
    return found;
  };
  existing(policy.cwd, "the working folder");
  const tmpdir = existing(policy.tmpdir, "its TMPDIR");
  const writable = outermost(policy.writableRoots.flatMap((root) => (inspector.inspect(root)?.type === "dir" ? [real(root) as string] : [])));
  const visible = [policy.cwd, ...(policy.workspace === undefined ? [] : [policy.workspace])]
    .flatMap((path) => real(path) ?? [])
    .filter((path) => !writable.some((root) => isInside(path, root)));
  const privateDirs = policy.unixSockets ? ["/tmp"] : ["/tmp", "/run"];
  const bound = [...visible, ...writable, tmpdir];
  const guard = protect(policy.readOnlyInside, writable, inspector);
  const masks = hide(policy.masked, inspector, (path) => !privateDirs.some((dir) => isInside(path, dir)) || bound.some((root) => isInside(path, root)));
  const { kind, cwd, network, unixSockets } = policy;
  return { kind, cwd, visible: [...new Set(visible)], writable, tmpdir, ...guard, ...masks, privateDirs, network, unixSockets };
}

/** Keeps `paths` read-only inside the writable roots; a missing or linked one by its nearest real folder, unless that is the root. */
function protect(paths: string[], writable: string[], inspector: PathInspector): Pick<ResolvedSandbox, "pinned" | "readOnly" | "unprotected"> {
  const pinned = new Set<string>();
  const readOnly = new Set<string>();
  const unprotected: string[] = [];
  for (const path of paths) {
    let target = path;
    let info = inspector.inspect(target);
    while ((info === null || info.symlink) && dirname(target) !== target) info = inspector.inspect((target = dirname(target)));
    if (info === null) continue;
    const root = writable.find((dir) => isInside(info.real, dir));
    if (root === undefined) continue;
    if (info.real === root) {
      unprotected.push(path);
      continue;
    }
    for (let dir = dirname(info.real); dir !== root; dir = dirname(dir)) pinned.add(dir);
    readOnly.add(info.real);
  }
  const outer = outermost([...readOnly]);
  return { pinned: [...pinned].filter((dir) => !outer.some((path) => isInside(dir, path))).sort(), readOnly: outer.sort(), unprotected };
}

/** The masks of `paths` that exist and `shown` says are visible, each target hidden once, with what they cannot hide. */
function hide(paths: string[], inspector: PathInspector, shown: (path: string) => boolean): Pick<ResolvedSandbox, "maskedFiles" | "maskedDirs" | "warnings"> {
  const found = new Map<string, PathInfo>();
  for (const path of paths) {
    const info = inspector.inspect(path);
    if (info !== null && shown(info.real)) found.set(info.real, info);
  }
  const dirs = outermost([...found.values()].filter((info) => info.type === "dir").map((info) => info.real));
  const files = [...found.values()].filter((info) => info.type !== "dir" && !dirs.some((dir) => isInside(info.real, dir)));
  const linked = [...files.filter((info) => info.type === "file" && info.links > 1).map((info) => info.real), ...dirs.flatMap((dir) => inspector.linkedFiles(dir))];
  const warnings = linked.map((path) => `${path} has another name (a hard link) that the sandbox does not hide`);
  return { maskedFiles: files.map((info) => info.real).sort(), maskedDirs: dirs, warnings };
}

/** Folders with those inside another dropped, shortest first (a mount on a folder covers what is under it). */
function outermost(dirs: string[]): string[] {
  const sorted = [...new Set(dirs)].sort((a, b) => a.length - b.length || a.localeCompare(b));
  return sorted.filter((dir, i) => !sorted.slice(0, i).some((outer) => isInside(dir, outer)));
}
