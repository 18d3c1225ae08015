// createPermissionContext: the gate the dispatcher asks before each call — permission modes, the approver, the approvals file, the allowed roots.
import { homedir } from "node:os";
import { resolve } from "node:path";
import { cutMiddle } from "../content.js";
import { safeSink, type ApprovalRequest, type Approver } from "../deps.js";
import type { ApprovalDecision, EventSink } from "../types.js";
import { broadPatternReason, matchesToolName, normalizeCommand } from "./approval-entries.js";
import { addApprovals, approvalsReader } from "./approvals-file.js";
import type { WarningSink } from "./approvals-file.js";
import type { GateAnswer, LeavePlanAnswer, PathAnswer, PermissionContext, PermissionMode, ToolAnswer, ToolCallCheck } from "./context.js";
import { isInside, resolveRealPath, sensitivePathReason } from "./path-check.js";
import { diskReasons } from "../shell/disk-check.js";
import { assessCommand, demoteSafe } from "../shell/safety.js";
import type { SafetyAssessment } from "../shell/safety.js";
import { processSecretsReason } from "../shell/process-secrets.js";
import { isProcessSecretPath } from "./secret-paths.js";
import { refusals } from "./refusals.js";

/** Longest input of a tool call shown to the approver and in events, in characters (JSON); the middle is cut. */
const MAX_SHOWN_INPUT_CHARS = 300;

/** What the approver is told a plan's question is about. */
const LEAVE_PLAN_REASON = "leave plan mode and carry out this plan";

/** What `createPermissionContext` needs; everything is injected. */
export interface PermissionContextOptions {
  /** The mode, or a holder whose mode may change: it is read at each check. */
  mode: PermissionMode | { mode: PermissionMode };
  /** Asked only when a command or path is neither cleared nor refused by the rules. */
  approver: Approver;
  /** `workspace/exec-approvals.json`: read on every check, "always" decisions added to it. */
  approvalsPath: string;
  /** Folders the file tools may use without asking: the working directory and the workspace. */
  roots: readonly string[];
  /** Folders inside the roots never written unasked: the workspace's sessions (transcripts and steering inboxes). */
  protectedDirs?: readonly string[];
  /** Relative paths are resolved from here. */
  cwd: string;
  /** The user's home folder: where `~` points and whose dotfiles are secrets. Defaults to the process's (`os.homedir()`). */
  home?: string;
  /** Receives an `approval` event for every decision the approver made and every refusal. */
  emit: EventSink;
  /** Warnings for the user (a corrupt approvals file...); defaults to `warning` events on `emit`. Each distinct warning is sent once. */
  onWarning?: WarningSink;
}

/**
 * Builds the gate. The mode is read once at the start of each check. `checkCommand`: in every
 * mode a denied command is refused; `plan` runs only safe commands; `bypassPermissions` runs
 * the rest; `default` and `acceptEdits` run safe and approved commands and ask the approver
 * about the others, persisting "always" answers. `checkPath`: inside the roots (after resolving
 * `..` and symlinks) allowed, except secrets and writes to `.git/`, the approvals file and
 * other configuration; otherwise `default` and `acceptEdits` ask, `plan` refuses writes (all
 * writes, in fact) and asks for reads, `bypassPermissions` allows. `checkTool` (any other tool):
 * a denied name is refused; `plan` refuses what is not read-only; a call that needs approval
 * runs when its name is allowed (globs too) or in `bypassPermissions`, otherwise the approver
 * is asked and "always" saves the name. In every check, `dontAsk` refuses what `default` would
 * ask about, without asking, and says how the user can allow it. `askLeavePlan` shows the
 * approver a plan and maps the answer to a mode. Never throws for a refusal.
 */
export function createPermissionContext(options: PermissionContextOptions): PermissionContext {
  const { approver, approvalsPath, cwd } = options;
  const holder: { mode: PermissionMode } = typeof options.mode === "string" ? { mode: options.mode } : options.mode;
  const warned = new Set<string>();
  const warn = (message: string): void => {
    if (warned.has(message)) return;
    warned.add(message);
    if (options.onWarning) options.onWarning(message);
    else emitSafely({ type: "warning", message });
  };
  const emitSafely = safeSink(options.emit);
  const readApprovals = approvalsReader(approvalsPath, warn);
  // Resolved once, at the first check that needs them (a turn whose tools touch no path never does):
  // a path that cannot be resolved (a link to itself, an unreadable folder) stands as written.
  const settled = (path: string): string => {
    try {
      return resolveRealPath(resolve(cwd, path));
    } catch {
      return resolve(cwd, path);
    }
  };
  const once = <T>(make: () => T): (() => T) => {
    let made: { value: T } | undefined;
    return () => (made ??= { value: make() }).value;
  };
  const roots = once(() => options.roots.map(settled));
  const where = { cwd: resolve(cwd), home: resolve(options.home ?? homedir()) };
  const realCwd = once(() => settled(where.cwd));
  const protectedPaths = once(() => [settled(approvalsPath)]);
  const protectedDirs = once(() => (options.protectedDirs ?? []).map(settled));
  const pathGrants = new Set<string>();
  const commandGrants = new Set<string>();

  async function ask(request: ApprovalRequest, id: string): Promise<ApprovalDecision> {
    const { command, reason } = request;
    let decision: ApprovalDecision;
    try {
      decision = await approver(request);
    } catch (error) {
      warn(`the approver failed (${error instanceof Error ? error.message : String(error)}); treating it as unavailable`);
      decision = "unavailable";
    }
    emitSafely({ type: "approval", id, command, decision, reason });
    return decision;
  }

  async function persist(command: string, list: "allowed" | "denied"): Promise<void> {
    try {
      await addApprovals(approvalsPath, { [list]: [command] }, warn);
    } catch (error) {
      warn(`could not save the decision to ${approvalsPath} (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  function refuse(id: string, command: string, reason: string): { allowed: false; reason: string } {
    emitSafely({ type: "approval", id, command, decision: "denied", reason });
    return { allowed: false, reason };
  }

  /** The pure verdict, then, for a safe one, the disk-aware pass, which can only make it stricter. */
  async function judgeCommand(command: string): Promise<SafetyAssessment> {
    const approvals = readApprovals();
    const assessment = await assessCommand(command, approvals, where);
    if (assessment.verdict !== "safe" || assessment.plan === undefined) return assessment;
    let disk: string[];
    try {
      disk = await diskReasons(assessment.plan, { cwd: realCwd(), home: where.home });
    } catch (error) {
      disk = [`the gate could not check the files it reads (${error instanceof Error ? error.message : String(error)})`];
    }
    return disk.length === 0 ? assessment : demoteSafe(command, approvals, disk, where);
  }

  async function checkCommand(command: string, toolUseId: string): Promise<GateAnswer> {
    const mode = holder.mode;
    const never = processSecretsReason(command, where);
    if (never) return refuse(toolUseId, command, refusals.never(command, never));
    const { verdict, reasons } = await judgeCommand(command);
    const why = reasons.join("; ");
    if (verdict === "denied") return refuse(toolUseId, command, refusals.deniedList(command));
    if (verdict === "safe") return { allowed: true, readOnly: true };
    if (mode === "plan") return refuse(toolUseId, command, refusals.planCommand(command, why));
    if (verdict === "approved" || mode === "bypassPermissions") return { allowed: true, readOnly: false };
    const entry = normalizeCommand(command);
    if (commandGrants.has(entry)) return { allowed: true, readOnly: false };
    if (mode === "dontAsk") return refuse(toolUseId, command, refusals.dontAskCommand(command, why));
    // An entry too broad for the file would be ignored when read back: "always" then lasts for this process only.
    const savable = broadPatternReason(entry) === null;
    const decision = await ask({ tool: "run_command", command, reason: why, ...(savable && { alwaysSaves: entry }) }, toolUseId);
    if (decision === "allow_always" && savable) await persist(command, "allowed");
    if (decision === "allow_always" && !savable) commandGrants.add(entry);
    if (decision === "deny_always") await persist(command, "denied");
    if (decision === "allow_once" || decision === "allow_always") return { allowed: true, readOnly: false };
    if (decision === "unavailable") return { allowed: false, reason: refusals.unavailableCommand(command, why) };
    return { allowed: false, reason: refusals.userDenied(command) };
  }

  async function checkPath(path: string, access: "read" | "write", toolUseId: string): Promise<PathAnswer> {
    const mode = holder.mode;
    const real = resolveRealPath(resolve(cwd, path));
    const label = `${access} ${real}`;
    if (isProcessSecretPath(real)) return refuse(toolUseId, label, refusals.never(label, "/proc holds process environments, API key included"));
    if (mode === "plan" && access === "write") return refuse(toolUseId, label, refusals.planWrite(real));
    const inside = roots().some((root) => isInside(real, root));
    const sensitive = sensitivePathReason(real, access, protectedPaths(), protectedDirs());
    if (inside && sensitive === null) return { allowed: true, path: real };
    if (mode === "bypassPermissions" || pathGrants.has(label)) return { allowed: true, path: real };
    const why = sensitive ?? `it is outside the allowed folders (${roots().join(", ")})`;
    if (mode === "dontAsk") return refuse(toolUseId, label, refusals.dontAskPath(access, real, why));
    const decision = await ask({ tool: access === "write" ? "write_file" : "read_file", command: label, reason: why }, toolUseId);
    if (decision === "allow_always") pathGrants.add(label);
    if (decision === "allow_once" || decision === "allow_always") return { allowed: true, path: real };
    if (decision === "unavailable") return { allowed: false, reason: refusals.unavailablePath(access, real, why) };
    return { allowed: false, reason: refusals.userDeniedPath(access, real) };
  }

  async function checkTool(call: ToolCallCheck, toolUseId: string): Promise<ToolAnswer> {
    const { tool } = call;
    const mode = holder.mode;
    const shown = describeCall(tool, call.input);
    const approvals = readApprovals();
    if (matchesToolName(tool, approvals.denied, false)) return refuse(toolUseId, shown, refusals.deniedTool(tool));
    if (mode === "plan" && !call.readOnly) return refuse(toolUseId, shown, refusals.planTool(tool));
    if (!call.needsApproval || mode === "bypassPermissions" || matchesToolName(tool, approvals.allowed, true)) return { allowed: true };
    if (mode === "dontAsk") return refuse(toolUseId, shown, refusals.dontAskTool(tool));
    const reason = "the tool is declared to need approval";
    const decision = await ask({ tool, command: shown, reason, alwaysSaves: tool, input: call.input }, toolUseId);
    if (decision === "allow_always") await persist(tool, "allowed");
    if (decision === "deny_always") await persist(tool, "denied");
    if (decision === "allow_once" || decision === "allow_always") return { allowed: true };
    if (decision === "unavailable") return { allowed: false, reason: refusals.unavailableTool(tool) };
    return { allowed: false, reason: refusals.userDeniedTool(tool) };
  }

  async function askLeavePlan(plan: string, toolUseId: string): Promise<LeavePlanAnswer> {
    const decision = await ask({ tool: "exit_plan_mode", command: plan, reason: LEAVE_PLAN_REASON, input: { plan } }, toolUseId);
    if (decision === "unavailable") return { answered: false, reason: refusals.leavePlanUnavailable() };
    // "Always" is the wider of the two grants the user can give here; bypassPermissions is never one of them.
    return { answered: true, mode: decision === "allow_once" ? "default" : decision === "allow_always" ? "acceptEdits" : undefined };
  }

  async function deniesTool(tool: string): Promise<boolean> {
    return matchesToolName(tool, readApprovals().denied, false);
  }

  return {
    get mode() {
      return holder.mode;
    },
    checkCommand,
    checkPath,
    checkTool,
    askLeavePlan,
    deniesTool,
  };
}

/** A call as the approver and the events show it: the tool's name and its input as JSON, cut when long. */
function describeCall(tool: string, input: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(input) ?? String(input);
  } catch {
    json = String(input);
  }
  return `${tool} ${cutMiddle(json, MAX_SHOWN_INPUT_CHARS, (cut) => ` … ${cut} characters … `)}`;
}
