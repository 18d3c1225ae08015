// What a read-only git may print that no path shows: patches of a secret-named file its history ever held, remote URLs with credentials.
import { execFile } from "node:child_process";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { orFallback } from "../errors.js";
import { scanSecrets } from "../gate/redact.js";
import { walkNameReason, readFileHead } from "../gate/secret-paths.js";
import { READ_ONLY_GIT_CONFIG, readOnlyGitEnv } from "./child-sandbox.js";

const TIMEOUT_MS = 5_000;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
const execGit = promisify(execFile);

/**
 * Why `git log -p`, `show` or `diff` in `dir` may print a secret: a secret-named path in the history, reflog, index or a commit named
 * in `objects`, or a blob or tree named by id. Not cached (new refs); a failure answers with a reason, as asking is the safe side.
 */
export async function gitHistoryReason(dir: string, home: string | undefined, objects: readonly string[] = []): Promise<string | null> {
  const env = gitEnv(home);
  const gitDir = (await runGit(dir, ["rev-parse", "--absolute-git-dir"], env).catch(() => null))?.trim();
  if (gitDir === undefined || gitDir === "") return null;
  try {
    const starts = await startingPoints(dir, objects, env);
    if (typeof starts === "string") return starts;
    return await scanHistory(dir, starts, env);
  } catch (error) {
    return `the gate could not check the repository's history for secrets (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`;
  }
}

/** The commits among `objects` (by full id), or why one cannot be checked: a blob, a tree, an ambiguous id. */
async function startingPoints(dir: string, objects: readonly string[], env: NodeJS.ProcessEnv): Promise<string[] | string> {
  if (objects.length === 0) return [];
  if (objects.some((o) => /[\n\r]/.test(o))) return "a revision it names holds a line break, so the gate cannot look it up";
  const answer = await runGit(dir, ["cat-file", "--batch-check"], env, `${objects.join("\n")}\n`);
  const commits: string[] = [];
  for (const line of answer.split("\n").filter(Boolean)) {
    const [id = "", type = ""] = line.split(" ");
    if (type === "commit" || type === "tag") commits.push(id);
    else if (type === "blob" || type === "tree") return `it names the ${type} ${id} by id, whose content the gate cannot judge by name`;
    else if (line.endsWith(" ambiguous")) return `\`${line.slice(0, -" ambiguous".length)}\` names several objects, which the gate cannot tell apart`;
  }
  return commits;
}

async function scanHistory(dir: string, starts: readonly string[], env: NodeJS.ProcessEnv): Promise<string | null> {
  const log = ["log", "--all", "--reflog", "-m", "--no-renames", "--no-ext-diff", "--no-textconv", "--diff-filter=A", "--name-only", "--format=", "-z"];
  const history = await runGit(dir, [...log, ...starts, "--"], env);
  const index = await runGit(dir, ["ls-files", "-z"], env);
  for (const path of `${history}\0${index}`.split(/[\0\n]/)) {
    const why = path === "" ? null : walkNameReason(path, false);
    if (why !== null) return `the repository's history holds ${path}, which its patches would print (${why})`;
  }
  return null;
}

async function runGit(cwd: string, args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<string> {
  const run = execGit("git", args, { cwd, env, timeout: TIMEOUT_MS, maxBuffer: MAX_OUTPUT_BYTES, encoding: "utf8", windowsHide: true });
  // A git that exits before reading its input must not crash the gate with EPIPE.
  run.child.stdin?.on("error", () => {});
  run.child.stdin?.end(input ?? "");
  return (await run).stdout;
}

/** A small environment (no API key, no prompts) for a git that reads only and reaches no other host. */
function gitEnv(home: string | undefined): NodeJS.ProcessEnv {
  const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", LC_ALL: "C", GIT_TERMINAL_PROMPT: "0", ...(home === undefined ? {} : { HOME: home }) };
  return readOnlyGitEnv(env, [...READ_ONLY_GIT_CONFIG, ["protocol.allow", "never"]]);
}

const MAX_CONFIG_BYTES = 256 * 1024;

/** Why `git remote` in `dir` may print a credential: a configuration git reads there (repository, worktree, user, system) holds a URL with one. */
export async function remoteCredentialsReason(dir: string, home: string | undefined): Promise<string | null> {
  const [own, common] = (await runGit(dir, ["rev-parse", "--absolute-git-dir", "--git-common-dir"], gitEnv(home)).catch(() => "")).split("\n");
  const shared = own && common ? resolve(dir, common) : undefined;
  const repository = own && shared ? [join(shared, "config"), join(own, "config.worktree"), ...(shared === own ? [] : [join(own, "config")])] : [];
  const user = home === undefined ? [] : [join(home, ".gitconfig"), join(home, ".config", "git", "config")];
  const file = [...repository, ...user, "/etc/gitconfig"].find(holdsUrlCredentials);
  return file === undefined ? null : `git remote prints the remote URLs, and ${file} holds a URL with credentials`;
}

function holdsUrlCredentials(file: string): boolean {
  const head = orFallback(() => readFileHead(file, MAX_CONFIG_BYTES), null);
  return head !== null && scanSecrets(head.toString("utf8")).labels.includes("URL credentials");
}
