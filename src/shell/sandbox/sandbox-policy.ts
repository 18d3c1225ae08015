// What one sandboxed command may touch: the policy's shape, the three policies the gate's verdicts map to, and where secrets
// and start-up scripts live outside a project.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { orFallback } from "../../errors.js";

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
