// The bash functions a read-only command runs under (imported by bash from BASH_FUNC_<name>%% variables).

/**
 * The function for a script interpreter with a sandbox switch (`sed`, `awk`, `gawk`): runs the real
 * program with `--sandbox` first, which disables what runs programs or opens files by name from inside
 * the script (sed's e, w, r, W, R; awk's system(), redirections, getline from files, extensions).
 * Without a sandbox on this machine the function refuses to run the program at all.
 */
export function sandboxedFunction(program: string, supported: boolean): string {
  if (supported) return `() { command ${program} --sandbox "$@"; }`;
  return `() { echo "miniclaw: ${program} runs unasked only in its --sandbox mode, which this machine lacks or this command did not name it for; the user must approve the command" >&2; return 126; }`;
}

/**
 * `git` for read-only commands. Diff-like subcommands get `--no-ext-diff --no-textconv` (`blame` and
 * `annotate` `--no-textconv`) right after the subcommand, so no diff driver or conversion program named
 * in any config or attributes file runs; `--ext-diff`, `--textconv` and options that bring in other
 * config or programs (`-c`, `--config-env`, `--exec-path=`) make it refuse instead. The global options
 * the gate lets through before the subcommand are flags; options with a value are skipped over whole
 * so the subcommand is still found if one ever gets here.
 */
export const GIT_READ_ONLY_FUNCTION = `() {
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
