// The gate as the tools see it: one object answering "may this command run / may this path be touched".

/** `default` asks for what is not provably safe; `plan` is read-only; `bypassPermissions` runs all but the denied. */
export type PermissionMode = "default" | "plan" | "bypassPermissions";

/**
 * `readOnly` is true when the command was judged safe (not approved, not bypassed): it then runs
 * with the read-only sandbox (sed and awk sandboxed, git without external programs), which is
 * what makes that verdict hold even where the parser misjudged a script.
 */
export type GateAnswer = { allowed: true; readOnly: boolean } | { allowed: false; reason: string };
export type PathAnswer = { allowed: true; path: string } | { allowed: false; reason: string };

/**
 * The permission context handed to tools. Implementations ask the approver when
 * needed, persist "always" decisions, and emit `approval` events; they never throw
 * for a refusal: they answer `{ allowed: false, reason }`, a sentence the model reads.
 */
export interface PermissionContext {
  mode: PermissionMode;
  /** Decides whether a shell command may run now. */
  checkCommand(command: string, toolUseId: string): Promise<GateAnswer>;
  /** Resolves a path (`..`, symlinks) from `cwd` and decides whether it may be read or written. */
  checkPath(path: string, access: "read" | "write", toolUseId: string): Promise<PathAnswer>;
}
