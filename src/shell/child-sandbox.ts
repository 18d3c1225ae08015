// The environment of a run_command child: git config for every child, and for a command judged read-only the guards that
// make that verdict hold where the gate misjudged a script (sed and awk sandboxed, git without external programs).
import { spawnSync } from "node:child_process";
import { orFallback } from "../errors.js";

/** What the read-only sandbox can rely on: GNU sed 4.3+ and gawk, whose `--sandbox` refuses what runs programs or opens files by name. */
export interface SandboxSupport { sed: boolean; awk: boolean }
let probed: SandboxSupport | undefined;

/** Probes `sed --sandbox` and `awk --sandbox` once per process (two short runs); where one is missing the gate asks for that program. */
export function sandboxSupport(): SandboxSupport {
  probed ??= { sed: accepts("sed", ["--sandbox", "-n", "p"]), awk: accepts("awk", ["--sandbox", "BEGIN { }"]) };
  return probed;
}

/** The probe's answer if it has run in this process. */
export function probedSandboxSupport(): SandboxSupport | undefined {
  return probed;
}

function accepts(program: string, args: string[]): boolean {
  return orFallback(() => spawnSync(program, args, { input: "", stdio: ["pipe", "ignore", "ignore"], timeout: 5_000 }).status === 0, false);
}

type Env = Record<string, string | undefined>;
type GitConfig = ReadonlyArray<readonly [string, string]>;
/** Every child: a folder the model wrote (`x/HEAD`, `x/config`, `x/objects/`) never becomes a repository whose config names programs. */
const EVERY_CHILD_GIT_CONFIG: GitConfig = [["safe.bareRepository", "explicit"]];
/** A git that only reads ignores the program-running settings of any config (external diff and textconv: the `git` function). */
export const READ_ONLY_GIT_CONFIG: GitConfig = [
  ...EVERY_CHILD_GIT_CONFIG, ["core.fsmonitor", "false"], ["core.pager", "cat"], ["core.hooksPath", "/dev/null"], ["log.showSignature", "false"],
];
/** `cd -` and `~-` read OLDPWD, `cd name` searches CDPATH: the gate resolves paths from what the command says, so no child has them. */
const HIDDEN_FOLDERS = ["OLDPWD", "CDPATH"];
/** What a command that never names sed or awk gets: both refuse, as where the machine has no sandbox mode. */
const NOT_NAMED: SandboxSupport = { sed: false, awk: false };

/** `env` giving git `entries` as command-line configuration (outranking every file), after the user's own pairs so ours win. */
function withGitConfig(env: Env, entries: GitConfig): Env {
  const out: Env = { ...env };
  const raw = env["GIT_CONFIG_COUNT"]?.trim();
  const existing = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : 0;
  entries.forEach(([key, value], i) => {
    out[`GIT_CONFIG_KEY_${existing + i}`] = key;
    out[`GIT_CONFIG_VALUE_${existing + i}`] = value;
  });
  out["GIT_CONFIG_COUNT"] = String(existing + entries.length);
  return out;
}

/** `env` for a git that only reads: `config`, no optional locks, no pager, no on-demand fetch of a partial clone (the network). */
export function readOnlyGitEnv(env: Env, config: GitConfig = READ_ONLY_GIT_CONFIG): Env {
  return { ...withGitConfig(env, config), GIT_OPTIONAL_LOCKS: "0", GIT_NO_LAZY_FETCH: "1", GIT_PAGER: "cat" };
}

/** The support a read-only child needs: the probe's if the gate ran it (judging a sed however spelled), or now if the text names them. */
export function sandboxSupportFor(command: string): SandboxSupport {
  return probedSandboxSupport() ?? (/sed|awk/.test(command) ? sandboxSupport() : NOT_NAMED);
}

/**
 * A run_command child's environment from the scrubbed `env`; when `readOnly`, with functions running sed and awk `--sandbox` (or
 * refusing) and git without external diff or textconv, so `\sed` and `$(sed)` are covered too.
 */
export function sandboxEnv(env: Env, readOnly: boolean, support: SandboxSupport): Env {
  const out = readOnly ? readOnlyGitEnv(env) : withGitConfig(env, EVERY_CHILD_GIT_CONFIG);
  for (const name of HIDDEN_FOLDERS) delete out[name];
  if (!readOnly) return out;
  out["PAGER"] = "cat";
  out["BASH_FUNC_git%%"] = GIT_READ_ONLY_FUNCTION;
  out["BASH_FUNC_sed%%"] = sandboxedFunction("sed", support.sed);
  out["BASH_FUNC_awk%%"] = sandboxedFunction("awk", support.awk);
  out["BASH_FUNC_gawk%%"] = sandboxedFunction("gawk", support.awk);
  return out;
}

function sandboxedFunction(program: string, supported: boolean): string {
  if (supported) return `() { command ${program} --sandbox "$@"; }`;
  return `() { echo "miniclaw: ${program} runs unasked only in its --sandbox mode, which this machine lacks or this command did not name it for; the user must approve the command" >&2; return 126; }`;
}

/** Diff-like subcommands get `--no-ext-diff --no-textconv`; `--ext-diff`, `--textconv`, `-c`, `--config-env`, `--exec-path=` refuse. */
const GIT_READ_ONLY_FUNCTION = `() {
  local -a pre=()
  local a
  while [ $# -gt 0 ]; do
    case $1 in
      -c|--config-env|--config-env=*|--exec-path=*) echo "miniclaw: git $1 is not allowed in a command that runs unasked" >&2; return 126 ;;
      -C|--git-dir|--work-tree|--namespace|--super-prefix) [ $# -ge 2 ] || break; pre+=("$1" "$2"); shift 2 ;;
      -*) pre+=("$1"); shift ;;
      *) break ;;
    esac
  done
  case \${1-} in
    diff|log|show|whatchanged|stash)
      for a in "$@"; do
        case $a in --ext-diff|--textconv) echo "miniclaw: git $a is not allowed in a command that runs unasked" >&2; return 126 ;; esac
      done ;;
  esac
  case \${1-} in
    diff|log|show|whatchanged) command git "\${pre[@]}" "$1" --no-ext-diff --no-textconv "\${@:2}" ;;
    blame|annotate) command git "\${pre[@]}" "$1" --no-textconv "\${@:2}" ;;
    stash)
      if [ "\${2-}" = show ]; then command git "\${pre[@]}" stash show --no-ext-diff --no-textconv "\${@:3}"
      else command git "\${pre[@]}" "$@"; fi ;;
    *) command git "\${pre[@]}" "$@" ;;
  esac
}`;
