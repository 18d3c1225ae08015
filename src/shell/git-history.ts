// Whether a git repository ever held a secret-named file (in any commit, reflog, the index or a commit named by id): then its patches are not safe to show.
import { execFile } from "node:child_process";
import { walkNameReason } from "../gate/secret-paths.js";

const TIMEOUT_MS = 5_000;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/**
 * Config for every git the gate runs: nothing the repository's own config names is run
 * (no fsmonitor, no signature program, no pager, no bare repository found by accident),
 * and nothing is fetched (no transport at all, so no ssh command either).
 */
const SAFE_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ["safe.bareRepository", "explicit"],
  ["core.fsmonitor", "false"],
  ["log.showSignature", "false"],
  ["core.pager", "cat"],
  ["protocol.allow", "never"],
];

/**
 * Why `git log -p`, `git show` or `git diff` run in `dir` may print a secret: the repository's
 * history, reflog or index, or a commit among `objects` (the revisions the command names, which
 * may be dangling), holds a path named like one (`.env`, a key...); or `objects` names a blob or
 * a tree, whose content the gate cannot judge by name. Null when none did, or `dir` is in no
 * repository. Not cached: a cache keyed on less than every ref and reflog missed new refs.
 * Bounded by a timeout, after which (or on any other failure) it answers with a reason: asking
 * is the safe side.
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

function runGit(cwd: string, args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile("git", args, { cwd, env, timeout: TIMEOUT_MS, maxBuffer: MAX_OUTPUT_BYTES, encoding: "utf8", windowsHide: true }, (error, stdout) => {
      if (error) reject(error);
      else resolve(stdout);
    });
    // A git that exits before reading its input must not crash the gate with EPIPE.
    child.stdin?.on("error", () => {});
    child.stdin?.end(input ?? "");
  });
}

/** A small environment: no API key, no pager, no prompts, no lazy fetches, and the safe config. */
function gitEnv(home: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env["PATH"] ?? "/usr/bin:/bin",
    LC_ALL: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_NO_LAZY_FETCH: "1",
    GIT_PAGER: "cat",
    GIT_CONFIG_COUNT: String(SAFE_CONFIG.length),
  };
  if (home !== undefined) env["HOME"] = home;
  SAFE_CONFIG.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}
