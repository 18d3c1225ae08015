// Entries of the approvals file as the gate reads them: the form commands are stored in, entries too broad to honour, tool names and globs.

/** The `{allowed, denied}` lists of the approvals file, as `checkCommandSafety` takes them. */
export interface ApprovalLists {
  allowed?: readonly string[];
  denied?: readonly string[];
}

/** The form in which commands are compared and stored: surrounding whitespace removed, nothing else changed. */
export function normalizeCommand(command: string): string {
  return command.trim();
}

/** Why an allowed entry is too broad to honour, or null: its program is a wildcard (`* -rf`), or its arguments only wildcards and options (`rm *`, `bash *`). */
export function broadPatternReason(entry: string): string | null {
  const [program, ...args] = entry.trim().split(/\s+/).filter((w) => w !== "");
  if (program === undefined) return null;
  if (/[*?[]/.test(program)) return "its program is a wildcard, so it approves any command";
  if (args.includes("*") && args.every((w) => w === "*" || w.startsWith("-"))) return `it approves every use of ${program}`;
  return null;
}

/** An entry that names tools rather than a command: the characters of tool names, with `*` and `?` as wildcards. */
const TOOL_ENTRY = /^[A-Za-z0-9_*?-]+$/;

/** Whether an allowed entry can approve tools: a tool name, or a glob of them that starts with a literal (`mcp__github__*`; `*_file` approves none). */
export function isToolEntry(entry: string): boolean {
  return TOOL_ENTRY.test(entry) && !/^[*?]/.test(entry);
}

/** Whether an entry names the tool, exactly or as a glob; with `narrowOnly` (allowed lists) none starting with a wildcard; a denied `*` denies every tool. */
export function matchesToolName(name: string, entries: readonly string[], narrowOnly: boolean): boolean {
  return entries.some((entry) => TOOL_ENTRY.test(entry) && (!narrowOnly || isToolEntry(entry)) && compileGlob(entry).test(name));
}

const MAX_CACHED_GLOBS = 1_000;
const globCache = new Map<string, RegExp>();

/** A tool-name glob as a cached RegExp of the whole name: `*` any characters, `?` one, the rest literal, case kept. */
export function compileGlob(glob: string): RegExp {
  const cached = globCache.get(glob);
  if (cached !== undefined) return cached;
  const source = [...glob].map((char) => (char === "*" ? ".*" : char === "?" ? "." : char.replace(/[.+^${}()|[\]\\/]/g, "\\$&"))).join("");
  const pattern = new RegExp(`^${source}$`, "su");
  if (globCache.size >= MAX_CACHED_GLOBS) globCache.clear();
  globCache.set(glob, pattern);
  return pattern;
}
