// Whether `git remote -v` would print a credential: a URL with userinfo in the repository's configuration or in the user's, whose `insteadOf` rewrites what it prints.
import { statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readFileHead } from "../gate/secret-content.js";
import { scanSecrets } from "../gate/redact.js";

/** Configuration files are small; a remote past this point is not looked for. */
const MAX_CONFIG_BYTES = 256 * 1024;

/**
 * Why `git remote` run in `dir` may print a credential: a configuration git reads there (the
 * repository's `config` and `config.worktree`, found as git finds them from `dir` upward
 * through a `.git` folder or a worktree's `.git` file; the user's `~/.gitconfig` and
 * `~/.config/git/config`; `/etc/gitconfig`) holds a URL with userinfo. Null when none does or
 * `dir` is in no repository. A file that cannot be read is skipped: git could not read it either.
 */
export function remoteCredentialsReason(dir: string, home: string | undefined): string | null {
  const user = home === undefined ? [] : [join(home, ".gitconfig"), join(home, ".config", "git", "config")];
  for (const file of [...repositoryConfigs(dir), ...user, "/etc/gitconfig"]) {
    if (holdsUrlCredentials(file)) return `git remote prints the remote URLs, and ${file} holds a URL with credentials`;
  }
  return null;
}

function holdsUrlCredentials(file: string): boolean {
  try {
    const head = readFileHead(file, MAX_CONFIG_BYTES);
    return head !== null && scanSecrets(head.toString("utf8")).labels.includes("URL credentials");
  } catch {
    return false;
  }
}

/** The repository configuration files git reads from `dir`: none outside a repository. */
function repositoryConfigs(dir: string): string[] {
  for (let current = resolve(dir); ; current = dirname(current)) {
    const dotGit = join(current, ".git");
    const kind = entryKind(dotGit);
    if (kind === "dir") return [join(dotGit, "config"), join(dotGit, "config.worktree")];
    if (kind === "file") return linkedConfigs(current, dotGit);
    if (dirname(current) === current) return [];
  }
}

/** A worktree's or submodule's `.git` file (`gitdir: …`): its own git folder, and the common one a `commondir` file names. */
function linkedConfigs(worktree: string, dotGit: string): string[] {
  const gitDir = /^gitdir: (.+)$/m.exec(readSmall(dotGit))?.[1]?.trim();
  if (gitDir === undefined) return [];
  const own = resolve(worktree, gitDir);
  const common = readSmall(join(own, "commondir")).trim();
  const shared = common === "" ? own : resolve(own, common);
  return [join(shared, "config"), join(own, "config.worktree"), ...(shared === own ? [] : [join(own, "config")])];
}

function entryKind(path: string): "dir" | "file" | null {
  try {
    const info = statSync(path);
    return info.isDirectory() ? "dir" : info.isFile() ? "file" : null;
  } catch {
    return null;
  }
}

/** A small file's text, read as a regular file only (a FIFO put in its place is not waited on); empty when it cannot be. */
function readSmall(path: string): string {
  try {
    return readFileHead(path, 4096)?.toString("utf8") ?? "";
  } catch {
    return "";
  }
}
