// The gate as the dispatcher sees it: one object answering "may this command run / this path be touched / this tool be called".

/**
 * `default` asks for what is not provably safe; `acceptEdits` writes and edits files inside the
 * working folder and workspace unasked, commands staying gated; `plan` runs only what is
 * read-only; `dontAsk` refuses what `default` would ask about (as `run` and cron do);
 * `bypassPermissions` runs all but the denied, and only the user can enter it. Denied entries
 * are refused in every mode.
 * `default` already writes and edits inside the roots unasked, so for the built-in file tools
 * `acceptEdits` differs only in name: what both still ask about inside the roots is protected
 * (`.git/`, the approvals file, configuration a later run obeys, secrets), and a mode for edits
 * must not let the model rewrite what decides what runs unasked.
 */
export type PermissionMode = "default" | "acceptEdits" | "plan" | "dontAsk" | "bypassPermissions";

/** Every mode, in order of how much runs unasked. */
export const PERMISSION_MODES: readonly PermissionMode[] = ["plan", "dontAsk", "default", "acceptEdits", "bypassPermissions"];

/**
 * `readOnly` is true when the command was judged safe (not approved, not bypassed): it then runs
 * with the read-only sandbox (sed and awk sandboxed, git without external programs), which is
 * what makes that verdict hold even where the parser misjudged a script.
 */
export type GateAnswer = { allowed: true; readOnly: boolean } | { allowed: false; reason: string };
export type PathAnswer = { allowed: true; path: string } | { allowed: false; reason: string };
export type ToolAnswer = { allowed: true } | { allowed: false; reason: string };

/**
 * The user's answer to a plan: `answered` with the mode to continue in (`undefined`: stay in plan
 * mode), or not answered (nobody can answer, as in `run` and cron) with the refusal the model reads.
 * Never `bypassPermissions`: only the user enters it, by choosing the mode themselves.
 */
export type LeavePlanAnswer =
  | { answered: true; mode: Exclude<PermissionMode, "bypassPermissions"> | undefined }
  | { answered: false; reason: string };

/** A call of a tool that neither runs commands nor touches paths, as its definition declares it. */
export interface ToolCallCheck {
  /** The tool's name: what exec-approvals.json lists (a name, or a glob such as `mcp__github__*`). */
  tool: string;
  /** The parsed input, shown to the approver. */
  input: unknown;
  /** Read-only for this input: it may run in plan mode. */
  readOnly: boolean;
  /** Declared to need the user's approval (`needsApproval`). */
  needsApproval: boolean;
}

/**
 * The permission context handed to tools. Implementations ask the approver when
 * needed, persist "always" decisions, and emit `approval` events; they never throw
 * for a refusal: they answer `{ allowed: false, reason }`, a sentence the model reads.
 */
export interface PermissionContext {
  /** The mode now: read at each check, so a change applies from the next tool call. */
  readonly mode: PermissionMode;
  /** Decides whether a shell command may run now. */
  checkCommand(command: string, toolUseId: string): Promise<GateAnswer>;
  /** Resolves a path (`..`, symlinks) from `cwd` and decides whether it may be read or written. */
  checkPath(path: string, access: "read" | "write", toolUseId: string): Promise<PathAnswer>;
  /** Decides whether a call of any other tool may run now: denied names, plan mode, approvals by tool name. */
  checkTool(call: ToolCallCheck, toolUseId: string): Promise<ToolAnswer>;
  /**
   * Shows the approver a plan and asks whether to leave plan mode: "allow once" continues in
   * `default`, "allow always" in `acceptEdits`, any other answer stays in plan mode. Does not
   * change the mode itself (the caller holds it). Never throws for a refusal.
   */
  askLeavePlan?(plan: string, toolUseId: string): Promise<LeavePlanAnswer>;
  /** Whether the approvals file denies this tool name: a tool the provider runs (web_search) is then not offered at all. */
  deniesTool?(tool: string): Promise<boolean>;
}
