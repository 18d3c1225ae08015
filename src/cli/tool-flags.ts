// --allowed-tools and --disallowed-tools as Claude Code users write them, turned into entries of the approvals lists for this process.
import { ConfigError } from "../errors.js";
import { broadPatternReason } from "../gate/approval-entries.js";

/** Claude Code's tool names and the miniclaw tool each one is. */
const ALIASES: Readonly<Record<string, string>> = {
  Bash: "run_command",
  Read: "read_file",
  Write: "write_file",
  Edit: "edit_file",
  MultiEdit: "edit_file",
  WebFetch: "web_fetch",
  WebSearch: "web_search",
  Task: "delegate",
  ExitPlanMode: "exit_plan_mode",
};
/** Claude Code tools miniclaw has no tool for: searches and listings are commands of run_command, whose read-only ones run unasked. */
const WITHOUT_COUNTERPART = new Set(["Glob", "Grep", "LS", "TodoWrite", "TodoRead", "NotebookEdit", "NotebookRead", "BashOutput", "KillShell", "KillBash", "SlashCommand"]);
/** A tool name or a glob of them, as the approvals file holds them (`mcp__github__*`). */
const TOOL_NAME = /^[A-Za-z0-9_*?-]+$/;

/**
 * Entries of `--allowed-tools` (`--disallowed-tools`: `denied`), split on commas and blanks outside parentheses; Claude Code's names become miniclaw's,
 * `Bash(git log:*)` the pattern `git log *`. ConfigError for a bare Bash allowed, a too broad pattern, a path or domain, or no tool.
 */
export function approvalEntries(values: readonly string[], list: "allowed" | "denied"): string[] {
  const flag = list === "allowed" ? "--allowed-tools" : "--disallowed-tools";
  return values.flatMap(splitTools).flatMap((item) => {
    const entry = entryOf(item, flag);
    if (entry === undefined) return [];
    if (list === "allowed" && entry === "run_command") {
      throw new ConfigError(`${flag} ${item} would approve every command: name commands, e.g. "Bash(git log:*)", or use --permission-mode bypassPermissions`);
    }
    const broad = list === "allowed" && !TOOL_NAME.test(entry) ? broadPatternReason(entry) : null;
    if (broad !== null) throw new ConfigError(`${flag} ${item}: ${broad}; name a narrower command`);
    return [entry];
  });
}

/** One item as an entry; undefined for a Claude Code tool with no counterpart that is allowed (nothing to approve). */
function entryOf(item: string, flag: string): string | undefined {
  const call = /^([A-Za-z]+)\(([\s\S]*)\)$/.exec(item);
  if (call) {
    const [, name, inner] = call as unknown as [string, string, string];
    if (name !== "Bash") throw new ConfigError(`${flag} ${item}: only Bash takes a pattern here (file tools already work unasked inside the working folder and workspace); name ${name} alone`);
    const pattern = inner.trim().replace(/:\*$/, " *");
    if (pattern === "") throw new ConfigError(`${flag} ${item}: the command pattern is empty`);
    return pattern;
  }
  if (WITHOUT_COUNTERPART.has(item)) {
    if (flag === "--allowed-tools") return undefined;
    throw new ConfigError(`${flag} ${item}: miniclaw has no such tool (searches and listings run through run_command: deny a command with "Bash(grep:*)")`);
  }
  const name = ALIASES[item] ?? item;
  if (!TOOL_NAME.test(name)) throw new ConfigError(`${flag} ${item}: not a tool name or Bash(command pattern)`);
  return name;
}

/** `Read,Edit Bash(git log:*)` → `["Read", "Edit", "Bash(git log:*)"]`: commas and blanks split, except inside parentheses. */
function splitTools(value: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of value) {
    if (char === "(") depth++;
    if (char === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === "," || /\s/.test(char))) {
      if (current) items.push(current);
      current = "";
    } else current += char;
  }
  if (current) items.push(current);
  return items;
}
