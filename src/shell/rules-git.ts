// git: the read-only subcommands and the options each may take; global options before the subcommand are checked too.
import { parseArgs } from "./arg-spec.js";
import type { ArgSpec } from "./arg-spec.js";
import { actionSubcommands, checkFormats, checkGitAction, moreSubcommands } from "./rules-git-more.js";
import type { GitSubcommand } from "./rules-git-more.js";
import type { ShellWord } from "./shell-words.js";

/** Global options that change nothing but output. `-C`, `-c`, `--git-dir`... are refused: they point git at other config. */
const GLOBAL_FLAGS = new Set(["--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects"]);

const GLOBAL_REFUSALS: Readonly<Record<string, string>> = {
  "-c": "sets configuration, which can name programs to run",
  "--config-env": "sets configuration, which can name programs to run",
  "-C": "runs git against another repository and its configuration",
  "--git-dir": "points git at another repository and its configuration",
  "--work-tree": "points git at another work tree",
  "--exec-path": "changes where git finds its programs",
  "--namespace": "changes the refs git acts on",
};

const SUBCOMMAND_REFUSALS: Readonly<Record<string, string>> = {
  push: "uses the network and changes a remote",
  fetch: "uses the network",
  pull: "uses the network and changes the work tree",
  clone: "uses the network and writes files",
  "ls-remote": "uses the network",
  submodule: "can use the network and write files",
  grep: "can open a pager or run a program (-O)",
  config: "reads or changes configuration",
};

const DIFF_OUTPUT_DENY: Readonly<Record<string, string>> = {
  "--output": "writes its output to a file",
  "--ext-diff": "runs an external diff program",
  "--textconv": "runs conversion programs named in the configuration",
  "--show-signature": "runs gpg",
};

const DIFF_LONG = [
  "patch", "no-patch", "stat[=]", "numstat", "shortstat", "dirstat[=]", "name-only", "name-status", "summary", "raw", "color[=]", "no-color",
  "word-diff[=]", "color-words[=]", "ignore-all-space", "ignore-space-change", "ignore-blank-lines", "ignore-cr-at-eol", "find-renames[=]",
  "find-copies[=]", "no-renames", "minimal", "patience", "histogram", "diff-algorithm=", "unified=", "abbrev[=]", "full-index", "binary",
  "relative[=]", "no-relative", "text", "diff-filter=", "check", "exit-code", "quiet", "src-prefix=", "dst-prefix=", "no-prefix",
  "ignore-submodules[=]", "no-ext-diff", "no-textconv", "function-context", "merge-base",
];

const LOG_LONG = [
  "oneline", "graph", "decorate[=]", "no-decorate", "all", "branches[=]", "tags[=]", "remotes[=]", "abbrev-commit", "no-abbrev-commit",
  "format=", "pretty[=]", "since=", "until=", "after=", "before=", "author=", "committer=", "grep=", "all-match", "invert-grep",
  "regexp-ignore-case", "reverse", "first-parent", "merges", "no-merges", "follow", "date=", "relative-date", "skip=", "max-count=",
  "source", "topo-order", "date-order", "author-date-order", "left-right", "cherry-pick", "cherry-mark", "no-walk[=]", "full-history",
  "simplify-by-decoration", "ancestry-path", "boundary", "parents", "children", "use-mailmap", "no-mailmap", "max-parents=",
  "min-parents=", "walk-reflogs", "max-age=", "min-age=", "author-date-order", "stdin-never", "log-size", "expand-tabs[=]", "no-expand-tabs",
];

const LOG: ArgSpec = { short: "puwbRzigE#", shortValue: "nSGL", shortOptional: "MCBU", long: [...DIFF_LONG, ...LOG_LONG], deny: DIFF_OUTPUT_DENY };
const DIFF: ArgSpec = { short: "puwbRz", shortOptional: "MCBU", long: [...DIFF_LONG, "cached", "staged", "no-index"], deny: DIFF_OUTPUT_DENY };

/** The read-only subcommands. Anything else (commit, reset, checkout, clean, push, config...) is refused. */
const SUBCOMMANDS: Readonly<Record<string, GitSubcommand>> = {
  status: {
    spec: {
      short: "sbvz",
      shortOptional: "u",
      long: ["short", "branch", "porcelain[=]", "long", "verbose", "untracked-files[=]", "ignored[=]", "ignore-submodules[=]", "no-renames", "renames", "find-renames[=]", "column[=]", "no-column", "ahead-behind", "no-ahead-behind", "show-stash", "null"],
    },
  },
  log: { spec: LOG },
  show: { spec: LOG },
  diff: { spec: DIFF },
  branch: {
    spec: {
      short: "arlv",
      long: ["all", "remotes", "list", "verbose", "show-current", "color[=]", "no-color", "column[=]", "no-column", "ignore-case", "contains[=]", "no-contains[=]", "merged[=]", "no-merged[=]", "points-at=", "sort=", "format=", "abbrev=", "omit-empty"],
    },
    check: (args) =>
      args.positionals.length === 0 || args.flags.some((f) => f.name === "-l" || f.name === "--list")
        ? null
        : "git branch with a name creates a branch; only listing (no names, or --list PATTERN) is read-only",
  },
  "rev-parse": {
    spec: {
      short: "q",
      long: ["show-toplevel", "abbrev-ref[=]", "short[=]", "verify", "quiet", "git-dir", "absolute-git-dir", "git-common-dir", "is-inside-work-tree", "is-inside-git-dir", "is-bare-repository", "is-shallow-repository", "show-prefix", "show-cdup", "symbolic", "symbolic-full-name", "all", "branches[=]", "tags[=]", "remotes[=]", "show-superproject-working-tree", "default=", "path-format="],
    },
  },
  blame: {
    spec: {
      short: "lstfnpecwb",
      shortValue: "L",
      shortOptional: "MC",
      long: ["porcelain", "line-porcelain", "show-stats", "root", "show-name", "show-number", "show-email", "date=", "abbrev=", "incremental", "minimal"],
    },
  },
  "ls-files": {
    spec: {
      short: "cdmoiskuzvtf",
      shortValue: "x",
      long: ["cached", "deleted", "modified", "others", "ignored", "stage", "killed", "unmerged", "directory", "no-empty-directory", "eol", "deduplicate", "exclude-standard", "full-name", "error-unmatch", "recurse-submodules", "sparse", "exclude=", "exclude-from=", "exclude-per-directory=", "format=", "abbrev[=]", "with-tree="],
    },
  },
  remote: { spec: { short: "v", long: ["verbose"], maxPositionals: 0 } },
  ...moreSubcommands(LOG),
};
const ACTION_SUBCOMMANDS = actionSubcommands(LOG, DIFF);

/** Why this `git ...` (words after `git`) is not read-only, or null when it is. */
export function checkGit(words: readonly ShellWord[]): string | null {
  let i = 0;
  for (; i < words.length; i++) {
    const word = words[i] as ShellWord;
    if (!word.value.startsWith("-")) break;
    if (word.value === "--version" && words.length === 1) return null;
    if (GLOBAL_FLAGS.has(word.value) && !word.glob) continue;
    const name = word.value.split("=")[0] as string;
    const why = Object.hasOwn(GLOBAL_REFUSALS, name) ? GLOBAL_REFUSALS[name] : undefined;
    return `git ${name} ${why ?? "is not on the read-only list of options before the subcommand"}`;
  }
  const sub = words[i];
  if (sub === undefined) return "git without a subcommand";
  const rest = words.slice(i + 1);
  const actions = !sub.glob && Object.hasOwn(ACTION_SUBCOMMANDS, sub.value) ? ACTION_SUBCOMMANDS[sub.value] : undefined;
  if (actions !== undefined) return checkGitAction(sub.value, actions, rest);
  const rule = !sub.glob && Object.hasOwn(SUBCOMMANDS, sub.value) ? SUBCOMMANDS[sub.value] : undefined;
  if (rule === undefined) {
    const why = Object.hasOwn(SUBCOMMAND_REFUSALS, sub.value) ? SUBCOMMAND_REFUSALS[sub.value] : undefined;
    return `git ${sub.value} ${why ?? "is not a read-only git command (status, log, diff, show, branch, tag, rev-parse, blame, ls-files, remote -v and other listings are)"}`;
  }
  const parsed = parseArgs(`git ${sub.value}`, rest, rule.spec);
  if (!parsed.ok) return parsed.reason;
  return checkFormats(parsed.args) ?? rule.check?.(parsed.args, rest) ?? null;
}
