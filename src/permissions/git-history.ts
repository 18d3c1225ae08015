// Whether a git repository ever held a secret-named file (in any commit, reflog or the index): then its patches are not safe to show.
import { execFile } from "node:child_process";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { walkNameReason } from "./secret-paths.js";

const TIMEOUT_MS = 5_000;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
const MAX_CACHED = 64;

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

const cache = new Map<string, Promise<string | null>>();

/**
 * Why `git log -p`, `git show` or `git diff` run in `dir` may print a secret: the repository's
 * history, reflog or index holds a path named like one (`.env`, a key...). Null when it never
 * did, or `dir` is in no repository. Cached per repository, HEAD and index; bounded by a
 * timeout, after which (or on any other failure) it answers with a reason: asking is the safe side.
 */
export async function gitHistoryReason(dir: string, home: string | undefined): Promise<string | null> {
  const env = gitEnv(home);
  const head = await runGit(dir, ["rev-parse", "--absolute-git-dir", "HEAD"], env).catch(() => null);
  const gitDir = head?.split("\n")[0] ?? (await runGit(dir, ["rev-parse", "--absolute-git-dir"], env).catch(() => null))?.trim();
  if (gitDir === undefined || gitDir === "") return null;
  const index = await stat(join(gitDir, "index")).then((s) => s.mtimeMs, () => 0);
  const key = `${gitDir}\0${head ?? "unborn"}\0${index}`;
  let answer = cache.get(key);
  if (answer === undefined) {
    if (cache.size >= MAX_CACHED) cache.clear();
    answer = scanHistory(dir, env);
    cache.set(key, answer);
  }
  return answer;
}

async function scanHistory(dir: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  try {
    const history = await runGit(dir, ["log", "--all", "--reflog", "-m", "--no-renames", "--no-ext-diff", "--no-textconv", "--diff-filter=A", "--name-only", "--format=", "-z"], env);
    const index = await runGit(dir, ["ls-files", "-z"], env);
    for (const path of `${history}\0${index}`.split(/[\0\n]/)) {
      const why = path === "" ? null : walkNameReason(path, false);
      if (why !== null) return `the repository's history holds ${path}, which its patches would print (${why})`;
    }
    return null;
  } catch (error) {
    return `the gate could not check the repository's history for secrets (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`;
  }
}

function runGit(cwd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("git", args, { cwd, env, timeout: TIMEOUT_MS, maxBuffer: MAX_OUTPUT_BYTES, encoding: "utf8", windowsHide: true }, (error, stdout) => {
      if (error) reject(error);
      else resolve(stdout);
    });
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
