// What one sandboxed command may touch: the policy's shape, the three policies the gate's verdicts map to, where secrets and
// start-up scripts live outside a project; and the policy's paths as they are on disk (real targets, missing paths dropped, what
// the mounts cannot promise).
import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { orFallback, ToolError } from "../../errors.js";
import { isInside } from "../../gate/path-check.js";

/** `read-only`: what the gate proved read-only; `confined`: what `auto` runs unasked (writing only the working folder, offline); `approved`. */
export type SandboxKind = "read-only" | "confined" | "approved";
/** The user's setting: `off` (no sandbox), `on` (the default where bubblewrap works), `auto` (confined commands run unasked). */
export type SandboxSetting = "off" | "on" | "auto";

/**
 * One command's sandbox as paths: it starts in `cwd`, sees `workspace` even under a private /tmp, writes `tmpdir` and `writableRoots`
 * but not `readOnlyInside`, sees `masked` empty; without `unixSockets` no local service (docker, D-Bus, ssh-agent) answers it.
 */
export interface SandboxPolicy {
  kind: SandboxKind;
  cwd: string;
  workspace?: string;
  tmpdir: string;
  writableRoots: string[];
  readOnlyInside: string[];
  masked: string[];
  network: boolean;
  unixSockets: boolean;
}

/** What `policyFor` needs: the place, the setting, the network for approved commands, configuration never writable, the project's secrets. */
export interface PolicyPlace {
  cwd: string;
  workspace?: string;
  tmpdir: string;
  home: string;
  setting: "on" | "auto";
  network: boolean;
  configFiles?: string[];
  projectSecrets?: string[];
  listDir?: (dir: string) => string[];
}

/**
 * The policy of each kind: commands run unasked see no secret, network or Unix socket; approved ones keep those (`git push`, `docker`)
 * but write only the working folder and TMPDIR (in `auto`, not git hooks and config, shell start-up files). The workspace is read-only
 * to every command, inside the working folder too: a folder mount, which a file replaced by rename beside it cannot undo.
 */
export function policyFor(kind: SandboxKind, place: PolicyPlace): SandboxPolicy {
  const system = systemSecretPaths(place.listDir);
  // Its configuration files by name as well, for a workspace that is the working folder itself.
  const config = [...(place.workspace === undefined ? [] : [place.workspace]), ...(place.configFiles ?? [])];
  const base = { kind, cwd: place.cwd, tmpdir: place.tmpdir, ...(place.workspace === undefined ? {} : { workspace: place.workspace }) };
  if (kind === "approved") {
    const writableRoots = [place.cwd];
    const guarded = place.setting === "auto" ? runsLater(writableRoots, place.home) : [];
    return { ...base, writableRoots, readOnlyInside: [...guarded, ...config], masked: system, network: place.network, unixSockets: true };
  }
  const masked = [...homeSecretPaths(place.home), ...system, ...(place.projectSecrets ?? [])];
  const writableRoots = kind === "confined" ? [place.cwd] : [];
  const readOnlyInside = kind === "confined" ? [...runsLater(writableRoots, place.home), ...config] : [];
  return { ...base, writableRoots, readOnlyInside, masked, network: false, unixSockets: false };
}

/** Credential folders and files of a home; histories too, since commands typed by hand carry tokens (`curl -H "Authorization: ..."`). */
const HOME_SECRETS = [
  ".ssh", ".aws", ".azure", ".gnupg", ".password-store", ".kube", ".docker", ".config/gh", ".config/gcloud", ".netrc", "_netrc", ".git-credentials", ".npmrc",
  ".pypirc", ".pgpass", ".vault-token", ".claude.json", ".bash_history", ".zsh_history", ".histfile", ".sh_history", ".python_history", ".psql_history",
  ".mysql_history", ".node_repl_history", ".sqlite_history", ".lesshst", ".local/share/fish/fish_history",
];

/** Shell start-up files: a command that wrote them would run its code in every later shell. */
const HOME_STARTUP = [
  ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".cshrc", ".tcshrc",
  ".mkshrc", ".inputrc", ".config/fish",
];

const SYSTEM_SECRETS = ["/run/secrets", "/var/run/secrets", "/etc/shadow", "/etc/gshadow"];

/** The home's secret locations as absolute paths, whether or not they exist (the sandbox skips missing ones). */
export function homeSecretPaths(home: string): string[] {
  return HOME_SECRETS.map((name) => join(home, name));
}

/** The system's secret locations: service secrets and the SSH host keys, listed now (a mount needs a name, not a pattern). */
export function systemSecretPaths(listDir = (dir: string): string[] => orFallback(() => readdirSync(dir), [])): string[] {
  const hostKeys = listDir("/etc/ssh").filter((name) => /^ssh_host_.+_key$/.test(name)).sort().map((name) => join("/etc/ssh", name));
  return [...SYSTEM_SECRETS, ...hostKeys];
}

/**
 * What later runs obey, so it stays read-only: git hooks and config of the writable folders (hooks, `core.fsmonitor`), their
 * AGENTS.md and CLAUDE.md (every later turn's system prompt), shell start-up files.
 */
function runsLater(roots: readonly string[], home: string): string[] {
  const obeyed = [join(".git", "hooks"), join(".git", "config"), "AGENTS.md", "CLAUDE.md"];
  return [...roots.flatMap((root) => obeyed.map((name) => join(root, name))), ...HOME_STARTUP.map((name) => join(home, name))];
}

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
