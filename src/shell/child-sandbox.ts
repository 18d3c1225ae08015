// The sandbox of a run_command child: git config every child gets, and what a command the gate judged read-only runs under.
import { probedSandboxSupport, sandboxSupport, type SandboxSupport } from "./sandbox-probe.js";

/** What a command that never names sed or awk gets: both refuse, as where the machine has no sandbox mode. */
const NOT_NAMED: SandboxSupport = { sed: false, awk: false };

/**
 * The sandbox support a read-only child needs. The gate probes (two short processes, once per
 * process) when it judges a sed or awk however spelled (`s\ed`, `"s"ed`), so a probe already run
 * answers; else a command whose text names them is probed now, and any other command, which cannot
 * start them but through something the gate let run unasked, gets functions that refuse to run them.
 */
export function sandboxSupportFor(command: string): SandboxSupport {
  return probedSandboxSupport() ?? (/sed|awk/.test(command) ? sandboxSupport() : NOT_NAMED);
}
import { withGitConfig } from "./git-config-env.js";
import { GIT_READ_ONLY_FUNCTION, sandboxedFunction } from "./sandbox-functions.js";

type Env = Record<string, string | undefined>;

/**
 * Every child: git refuses to treat a folder as a bare repository unless told so explicitly, so a
 * folder the model wrote (`x/HEAD`, `x/config`, `x/objects/`, `x/refs/`) never becomes a repository
 * whose config names programs to run (`diff.external`, `core.fsmonitor`, hooks...).
 */
const EVERY_CHILD_GIT_CONFIG: ReadonlyArray<[string, string]> = [["safe.bareRepository", "explicit"]];

/**
 * Read-only children also ignore the program-running settings of whatever config git reads: no
 * file-system monitor, no pager, no hooks. (External diff and textconv are turned off per command by
 * the `git` function, because config cannot unset them.)
 */
const READ_ONLY_GIT_CONFIG: ReadonlyArray<[string, string]> = [
  ["core.fsmonitor", "false"],
  ["core.pager", "cat"],
  ["core.hooksPath", "/dev/null"],
  ["log.showSignature", "false"],
];

/**
 * Variables that move where `cd` goes without the command saying so (`cd -` and `~-` read OLDPWD,
 * `cd name` searches CDPATH): the gate resolves paths from what the command says, so no child has them.
 */
const HIDDEN_FOLDERS = ["OLDPWD", "CDPATH"];

/**
 * The environment a child runs with, built from the scrubbed `env` for one call. Called for every
 * run_command child. When `readOnly` (the gate ran it unasked as provably read-only), bash imports
 * functions that make that verdict hold even where the gate misjudged a script: `sed --sandbox`,
 * `awk --sandbox` (where this machine's programs lack it, they refuse to run: the gate asks for them there), and
 * a `git` that never runs external diff or textconv programs. Functions, not a rewritten command, so
 * `\sed`, `'sed'` and `$(sed ...)` are covered as well; a path such as `/usr/bin/sed` is not a program
 * the gate runs unasked.
 */
export function sandboxEnv(env: Env, readOnly: boolean, support: SandboxSupport): Env {
  const out = withGitConfig(env, readOnly ? [...EVERY_CHILD_GIT_CONFIG, ...READ_ONLY_GIT_CONFIG] : EVERY_CHILD_GIT_CONFIG);
  for (const name of HIDDEN_FOLDERS) delete out[name];
  if (!readOnly) return out;
  out["GIT_OPTIONAL_LOCKS"] = "0";
  // A partial clone fetches missing objects on demand: a read would use the network (and ssh's config).
  out["GIT_NO_LAZY_FETCH"] = "1";
  // GIT_PAGER outranks pager.<command> in any config; a pager only starts on a terminal, never here, but say so anyway.
  out["GIT_PAGER"] = "cat";
  out["PAGER"] = "cat";
  out["BASH_FUNC_git%%"] = GIT_READ_ONLY_FUNCTION;
  out["BASH_FUNC_sed%%"] = sandboxedFunction("sed", support.sed);
  out["BASH_FUNC_awk%%"] = sandboxedFunction("awk", support.awk);
  out["BASH_FUNC_gawk%%"] = sandboxedFunction("gawk", support.awk);
  return out;
}
