// Where secrets and start-up scripts live outside a project: the home's credential stores and histories, and the system's keys.
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Credential folders and files of a home; histories too, since commands typed by hand carry tokens (`curl -H "Authorization: ..."`). */
const HOME_SECRETS = [
  ".ssh", ".aws", ".azure", ".gnupg", ".password-store", ".kube", ".docker", ".config/gh", ".config/gcloud", ".netrc", "_netrc", ".git-credentials", ".npmrc",
  ".pypirc", ".pgpass", ".vault-token", ".claude.json", ".bash_history", ".zsh_history", ".histfile", ".sh_history", ".python_history", ".psql_history",
  ".mysql_history", ".node_repl_history", ".sqlite_history", ".lesshst", ".local/share/fish/fish_history",
];

/** Shell start-up files: a command that wrote them would run its code in every later shell, so they stay read-only. */
const HOME_STARTUP = [
  ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".cshrc", ".tcshrc",
  ".mkshrc", ".inputrc", ".config/fish",
];

/** Secrets the system hands to services and containers. */
const SYSTEM_SECRETS = ["/run/secrets", "/var/run/secrets", "/etc/shadow", "/etc/gshadow"];

/** Lists a folder's names; the Node default answers [] for a folder that cannot be read. */
export type ListDir = (dir: string) => string[];

const listDirOrNothing: ListDir = (dir) => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

/** The home's secret locations as absolute paths, whether or not they exist (the sandbox skips missing ones). */
export function homeSecretPaths(home: string): string[] {
  return HOME_SECRETS.map((name) => join(home, name));
}

/** The home's shell start-up files as absolute paths, whether or not they exist. */
export function shellStartupPaths(home: string): string[] {
  return HOME_STARTUP.map((name) => join(home, name));
}

/** The system's secret locations: service secrets and the SSH host keys, listed now (a mount needs a name, not a pattern). */
export function systemSecretPaths(listDir: ListDir = listDirOrNothing): string[] {
  const hostKeys = listDir("/etc/ssh").filter((name) => /^ssh_host_.+_key$/.test(name)).sort().map((name) => join("/etc/ssh", name));
  return [...SYSTEM_SECRETS, ...hostKeys];
}

/** The git hooks and config of each writable folder: read-only, since a later git runs what they name (hooks, `core.fsmonitor`...). */
export function gitProtectedPaths(roots: readonly string[]): string[] {
  return roots.flatMap((root) => [join(root, ".git", "hooks"), join(root, ".git", "config")]);
}
