// The gate as the tools see it: one object answering "may this command run / may this path be touched".

/** `default` asks for what is not provably safe; `plan` is read-only; `bypassPermissions` runs all but the denied. */
export type PermissionMode = "default" | "plan" | "bypassPermissions";

export type GateAnswer = { allowed: true } | { allowed: false; reason: string };
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
