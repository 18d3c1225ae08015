// More read-only git subcommands (tags, stashes, refs, objects, shortlog...) and the format strings that would make git run gpg.
import { parseArgs } from "./arg-spec.js";
import type { ArgSpec, ParsedArgs } from "./arg-spec.js";
import type { ShellWord } from "./shell-words.js";

/** How one git subcommand is judged: its options, then an optional check over the parsed options and the raw words after it. */
export interface GitSubcommand {
  spec: ArgSpec;
  check?: (args: ParsedArgs, words: readonly ShellWord[]) => string | null;
}

/** A subcommand whose first word picks what it does (`stash list`, `worktree list`): only the listed actions. */
export interface GitActions {
  actions: Readonly<Record<string, ArgSpec>>;
  /** The action when the first word is an option or absent (`git reflog -5` shows), if any. */
  implicit?: string;
}

const REF_FILTER = ["contains[=]", "no-contains[=]", "merged[=]", "no-merged[=]", "points-at=", "sort=", "format=", "color[=]", "ignore-case", "omit-empty"];
/** Options that put `git tag` in list mode, so its words are patterns and not a tag to create. */
const TAG_LISTING = new Set(["-l", "--list", "-n", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"]);

/** Built by rules-git.ts with its log and diff option lists, which these share. */
export function moreSubcommands(log: ArgSpec): Record<string, GitSubcommand> {
  return {
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
    "rev-list": { spec: { ...log, long: [...(log.long ?? []), "count", "objects", "objects-edge", "no-object-names", "timestamp"] }, check: checkUnwrappedPatches },
    "cat-file": { spec: { short: "tspe", long: ["allow-unknown-type", "use-mailmap", "mailmap"] }, check: checkCatFile },
    "ls-tree": { spec: { short: "drtzl", long: ["long", "name-only", "name-status", "object-only", "full-name", "full-tree", "format=", "abbrev[=]"] } },
    "merge-base": { spec: { short: "a", long: ["all", "octopus", "independent", "is-ancestor", "fork-point"] } },
    "for-each-ref": { spec: { short: "sp", long: ["shell", "perl", "python", "tcl", "count=", "exclude=", ...REF_FILTER] } },
    "show-ref": { spec: { short: "dq", shortOptional: "s", long: ["tags", "heads", "branches", "verify", "head", "dereference", "hash[=]", "abbrev[=]", "quiet", "exists"] } },
    "name-rev": { spec: { long: ["name-only", "tags", "refs=", "exclude=", "all", "undefined", "no-undefined", "always"] } },
    "count-objects": { spec: { short: "vH", long: ["verbose", "human-readable"], maxPositionals: 0 } },
    version: { spec: { long: ["build-options"], maxPositionals: 0 } },
  };
}

/** Subcommands with actions; only the read-only ones are listed. */
export function actionSubcommands(log: ArgSpec, diff: ArgSpec): Record<string, GitActions> {
  return {
    stash: { actions: { list: log, show: { ...diff, short: `${diff.short ?? ""}u`, long: [...(diff.long ?? []), "include-untracked", "only-untracked"] } } },
    // `expire`, `delete` and `drop` rewrite the reflog.
    reflog: { actions: { show: log }, implicit: "show" },
    worktree: { actions: { list: { short: "vz", long: ["porcelain", "verbose", "expire="], maxPositionals: 0 } } },
  };
}

/** Why `git SUB ACTION ...` is not read-only, or null. */
export function checkGitAction(sub: string, rule: GitActions, words: readonly ShellWord[]): string | null {
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
  "-p", "-u", "-U", "-W", "-S", "-G", "-L", "--patch", "--stat", "--numstat", "--shortstat", "--dirstat", "--word-diff", "--color-words",
  "--unified", "--check", "--function-context", "--binary", "--patch-with-stat", "--patch-with-raw", "--compact-summary",
]);

/**
 * Why a log-like listing that git is not told `--no-ext-diff --no-textconv` for (`git reflog -p`,
 * `git stash list -p`, `git rev-list -S`) may run a program: diffs of contents run the
 * `diff.<driver>.textconv` and `diff.external` programs of the configuration. Fine when the
 * command says both itself.
 */
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

/** Options whose value is, or may hold (`shortlog --group=format:...`), a pretty format. */
const FORMAT_OPTIONS = new Set(["--format", "--pretty", "--group"]);

/**
 * Why a `--format` / `--pretty` / `--group` value could make git run a program: `%G` placeholders
 * and `%(signature)` atoms verify signatures with the gpg program named in the configuration, and a
 * `--pretty` name that is not built in is looked up in the configuration (`pretty.<name>`).
 */
export function checkFormats(args: ParsedArgs): string | null {
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
