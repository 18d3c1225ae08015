// git: the read-only subcommands and the options each may take; global options before the subcommand are checked too.
import { parseArgs, type ArgSpec, type ParsedArgs } from "./arg-spec.js";
import type { ShellWord } from "./shell-words.js";

/** Global options that change nothing but output. `-C`, `-c`, `--git-dir`... are refused: they point git at other config. */
const GLOBAL_FLAGS = new Set(["--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects"]);

const GLOBAL_REFUSALS: Readonly<Record<string, string>> = {
  "-c": "sets configuration, which can name programs to run", "--config-env": "sets configuration, which can name programs to run",
  "-C": "runs git against another repository and its configuration", "--git-dir": "points git at another repository and its configuration",
  "--work-tree": "points git at another work tree", "--exec-path": "changes where git finds its programs", "--namespace": "changes the refs git acts on",
};
const SUBCOMMAND_REFUSALS: Readonly<Record<string, string>> = {
  push: "uses the network and changes a remote", fetch: "uses the network", pull: "uses the network and changes the work tree",
  clone: "uses the network and writes files", "ls-remote": "uses the network", submodule: "can use the network and write files",
  grep: "can open a pager or run a program (-O)", config: "reads or changes configuration",
};
const DIFF_OUTPUT_DENY: Readonly<Record<string, string>> = {
  "--output": "writes its output to a file", "--ext-diff": "runs an external diff program",
  "--textconv": "runs conversion programs named in the configuration", "--show-signature": "runs gpg",
};

const DIFF_LONG = [
  "patch", "no-patch", "stat[=]", "numstat", "shortstat", "dirstat[=]", "name-only", "name-status", "summary", "raw", "color[=]", "no-color", "word-diff[=]",
  "color-words[=]", "ignore-all-space", "ignore-space-change", "ignore-blank-lines", "ignore-cr-at-eol", "find-renames[=]", "find-copies[=]", "no-renames",
  "minimal", "patience", "histogram", "diff-algorithm=", "unified=", "abbrev[=]", "full-index", "binary", "relative[=]", "no-relative", "text", "diff-filter=",
  "check", "exit-code", "quiet", "src-prefix=", "dst-prefix=", "no-prefix", "ignore-submodules[=]", "no-ext-diff", "no-textconv", "function-context", "merge-base",
];

const LOG_LONG = [
  "oneline", "graph", "decorate[=]", "no-decorate", "all", "branches[=]", "tags[=]", "remotes[=]", "abbrev-commit", "no-abbrev-commit", "format=", "pretty[=]",
  "since=", "until=", "after=", "before=", "author=", "committer=", "grep=", "all-match", "invert-grep", "regexp-ignore-case", "reverse", "first-parent", "merges",
  "no-merges", "follow", "date=", "relative-date", "skip=", "max-count=", "source", "topo-order", "date-order", "author-date-order", "left-right", "cherry-pick",
  "cherry-mark", "no-walk[=]", "full-history", "simplify-by-decoration", "ancestry-path", "boundary", "parents", "children", "use-mailmap", "no-mailmap",
  "max-parents=", "min-parents=", "walk-reflogs", "max-age=", "min-age=", "author-date-order", "stdin-never", "log-size", "expand-tabs[=]", "no-expand-tabs",
];

const LOG: ArgSpec = { short: "puwbRzigE#", shortValue: "nSGL", shortOptional: "MCBU", long: [...DIFF_LONG, ...LOG_LONG], deny: DIFF_OUTPUT_DENY };
const DIFF: ArgSpec = { short: "puwbRz", shortOptional: "MCBU", long: [...DIFF_LONG, "cached", "staged", "no-index"], deny: DIFF_OUTPUT_DENY };
const REF_FILTER = ["contains[=]", "no-contains[=]", "merged[=]", "no-merged[=]", "points-at=", "sort=", "format=", "color[=]", "ignore-case", "omit-empty"];
/** Options that put `git tag` in list mode, so its words are patterns and not a tag to create. */
const TAG_LISTING = new Set(["-l", "--list", "-n", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"]);
interface GitSubcommand { spec: ArgSpec; check?: (args: ParsedArgs, words: readonly ShellWord[]) => string | null }

/** The read-only subcommands. Anything else (commit, reset, checkout, clean, push, config...) is refused. */
const SUBCOMMANDS: Readonly<Record<string, GitSubcommand>> = {
  status: { spec: { short: "sbvz", shortOptional: "u", long: ["short", "branch", "porcelain[=]", "long", "verbose", "untracked-files[=]", "ignored[=]", "ignore-submodules[=]", "no-renames", "renames", "find-renames[=]", "column[=]", "no-column", "ahead-behind", "no-ahead-behind", "show-stash", "null"] } },
  log: { spec: LOG },
  show: { spec: LOG },
  diff: { spec: DIFF },
  branch: {
    spec: { short: "arlv", long: ["all", "remotes", "list", "verbose", "show-current", "color[=]", "no-color", "column[=]", "no-column", "ignore-case", "contains[=]", "no-contains[=]", "merged[=]", "no-merged[=]", "points-at=", "sort=", "format=", "abbrev=", "omit-empty"] },
    check: (args) =>
      args.positionals.length === 0 || args.flags.some((f) => f.name === "-l" || f.name === "--list") ? null : "git branch with a name creates a branch; only listing (no names, or --list PATTERN) is read-only",
  },
  "rev-parse": { spec: { short: "q", long: ["show-toplevel", "abbrev-ref[=]", "short[=]", "verify", "quiet", "git-dir", "absolute-git-dir", "git-common-dir", "is-inside-work-tree", "is-inside-git-dir", "is-bare-repository", "is-shallow-repository", "show-prefix", "show-cdup", "symbolic", "symbolic-full-name", "all", "branches[=]", "tags[=]", "remotes[=]", "show-superproject-working-tree", "default=", "path-format="] } },
  blame: { spec: { short: "lstfnpecwb", shortValue: "L", shortOptional: "MC", long: ["porcelain", "line-porcelain", "show-stats", "root", "show-name", "show-number", "show-email", "date=", "abbrev=", "incremental", "minimal"] } },
  "ls-files": { spec: { short: "cdmoiskuzvtf", shortValue: "x", long: ["cached", "deleted", "modified", "others", "ignored", "stage", "killed", "unmerged", "directory", "no-empty-directory", "eol", "deduplicate", "exclude-standard", "full-name", "error-unmatch", "recurse-submodules", "sparse", "exclude=", "exclude-from=", "exclude-per-directory=", "format=", "abbrev[=]", "with-tree="] } },
  remote: { spec: { short: "v", long: ["verbose"], maxPositionals: 0 } },
  tag: {
    spec: { short: "li", shortOptional: "n", long: ["list", "column[=]", "no-column", ...REF_FILTER] },
    check: (args) =>
      args.positionals.length === 0 || args.flags.some((f) => TAG_LISTING.has(f.name)) ? null : "git tag with a name creates a tag; only listing (no names, or -l PATTERN) is read-only",
  },
  shortlog: {
    spec: { short: "cnse", shortOptional: "w", long: ["committer", "numbered", "summary", "email", "group=", "format=", "all", "branches[=]", "tags[=]", "remotes[=]", "since=", "until=", "after=", "before=", "author=", "max-count=", "no-merges", "merges", "first-parent"] },
    check: checkShortlogRevision,
  },
  "check-ignore": { spec: { short: "qvzn", long: ["quiet", "verbose", "non-matching", "no-index"] } },
  // --dirty and --broken refresh the index (a write): left out.
  describe: { spec: { long: ["contains", "debug", "all", "tags", "long", "first-parent", "abbrev[=]", "exact-match", "candidates=", "match=", "exclude=", "always"] } },
  "rev-list": { spec: { ...LOG, long: [...(LOG.long ?? []), "count", "objects", "objects-edge", "no-object-names", "timestamp"] }, check: checkUnwrappedPatches },
  "cat-file": { spec: { short: "tspe", long: ["allow-unknown-type", "use-mailmap", "mailmap"] }, check: checkCatFile },
  "ls-tree": { spec: { short: "drtzl", long: ["long", "name-only", "name-status", "object-only", "full-name", "full-tree", "format=", "abbrev[=]"] } },
  "merge-base": { spec: { short: "a", long: ["all", "octopus", "independent", "is-ancestor", "fork-point"] } },
  "for-each-ref": { spec: { short: "sp", long: ["shell", "perl", "python", "tcl", "count=", "exclude=", ...REF_FILTER] } },
  "show-ref": { spec: { short: "dq", shortOptional: "s", long: ["tags", "heads", "branches", "verify", "head", "dereference", "hash[=]", "abbrev[=]", "quiet", "exists"] } },
  "name-rev": { spec: { long: ["name-only", "tags", "refs=", "exclude=", "all", "undefined", "no-undefined", "always"] } },
  "count-objects": { spec: { short: "vH", long: ["verbose", "human-readable"], maxPositionals: 0 } },
  version: { spec: { long: ["build-options"], maxPositionals: 0 } },
};

/** A subcommand whose first word picks what it does (`stash list`): only the listed actions; `implicit` when the first word is an option. */
interface GitActions { actions: Readonly<Record<string, ArgSpec>>; implicit?: string }

const ACTION_SUBCOMMANDS: Readonly<Record<string, GitActions>> = {
  stash: { actions: { list: LOG, show: { ...DIFF, short: `${DIFF.short ?? ""}u`, long: [...(DIFF.long ?? []), "include-untracked", "only-untracked"] } } },
  // `expire`, `delete` and `drop` rewrite the reflog.
  reflog: { actions: { show: LOG }, implicit: "show" },
  worktree: { actions: { list: { short: "vz", long: ["porcelain", "verbose", "expire="], maxPositionals: 0 } } },
};

/** Where git's subcommand is among its words: the first that is not an option (-1 without one). */
export function gitSubcommandAt(words: readonly ShellWord[]): number {
  return words.findIndex((w) => !w.value.startsWith("-"));
}

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

function checkGitAction(sub: string, rule: GitActions, words: readonly ShellWord[]): string | null {
  const first = words[0];
  const explicit = first !== undefined && !first.value.startsWith("-");
  const action = explicit ? first.value : rule.implicit;
  const spec = action !== undefined && !first?.glob && Object.hasOwn(rule.actions, action) ? rule.actions[action] : undefined;
  if (spec === undefined) {
    const forms = Object.keys(rule.actions).map((a) => `\`git ${sub} ${a}\``).join(", ");
    return `${explicit ? `git ${sub} ${first.value}` : `git ${sub} without an action`} is not read-only (read-only: ${forms})`;
  }
  const parsed = parseArgs(`git ${sub} ${action}`, explicit ? words.slice(1) : words, spec);
  if (!parsed.ok) return parsed.reason;
  return checkFormats(parsed.args) ?? (UNWRAPPED_LISTINGS.has(`${sub} ${action}`) ? checkUnwrappedPatches(parsed.args) : null);
}

/** Listings that take log's options but to which run_command's git function does not add `--no-ext-diff --no-textconv`. */
const UNWRAPPED_LISTINGS = new Set(["reflog show", "stash list"]);
/** Options that make a log-like listing compute diffs of file contents (patches, stats, pickaxe, line history). */
const CONTENT_DIFF_OPTIONS = new Set([
  "-p", "-u", "-U", "-W", "-S", "-G", "-L", "--patch", "--stat", "--numstat", "--shortstat", "--dirstat", "--word-diff", "--color-words", "--unified", "--check",
  "--function-context", "--binary", "--patch-with-stat", "--patch-with-raw", "--compact-summary",
]);

/** Diffs of contents in a listing the git function does not wrap (`git reflog -p`) run the configuration's textconv and external diff. */
function checkUnwrappedPatches(args: ParsedArgs): string | null {
  const diff = args.flags.find((f) => CONTENT_DIFF_OPTIONS.has(f.name));
  if (diff === undefined) return null;
  const names = new Set(args.flags.map((f) => f.name));
  if (names.has("--no-textconv") && names.has("--no-ext-diff")) return null;
  return `git: \`${diff.name}\` here diffs file contents, which runs the textconv and external diff programs of the configuration (add --no-ext-diff --no-textconv)`;
}

/** Without a revision, `git shortlog` reads a log from stdin instead of the repository. */
function checkShortlogRevision(args: ParsedArgs, words: readonly ShellWord[]): string | null {
  const dash = words.findIndex((w) => w.value === "--");
  const paths = dash === -1 ? 0 : words.length - dash - 1;
  const ranges = args.flags.some((f) => ["--all", "--branches", "--tags", "--remotes"].includes(f.name));
  return ranges || args.positionals.length > paths ? null : "git shortlog without a revision reads stdin; name one (HEAD, main..)";
}

function checkCatFile(args: ParsedArgs): string | null {
  const modes = args.flags.filter((f) => ["-t", "-s", "-p", "-e"].includes(f.name));
  if (modes.length !== 1) return "git cat-file needs exactly one of -t, -s, -p, -e (the batch and conversion modes are not read-only here)";
  return args.positionals.length === 1 ? null : "git cat-file takes one object here";
}

const BUILTIN_PRETTY = new Set(["oneline", "short", "medium", "full", "fuller", "reference", "email", "mboxrd", "raw"]);
const FORMAT_OPTIONS = new Set(["--format", "--pretty", "--group"]);

/** `%G` and `%(signature)` run the configuration's gpg; a `--pretty` name that is not built in is read from the configuration. */
function checkFormats(args: ParsedArgs): string | null {
  for (const flag of args.flags) {
    if (!FORMAT_OPTIONS.has(flag.name)) continue;
    const value = flag.value?.value ?? "";
    if (/%G|%\(signature/.test(value)) return `git: the format \`${value}\` verifies signatures, which runs the gpg program of the configuration`;
    if (flag.name === "--group") continue;
    const named = value !== "" && !value.includes("%") && !/^t?format:/.test(value);
    if (named && !BUILTIN_PRETTY.has(value)) return `git: \`${flag.name}=${value}\` may name a format from the configuration`;
  }
  return null;
}
