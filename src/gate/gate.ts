// The gate the dispatcher asks once per call: the call's verdict (the approvals file, the command judge, the path rules), then the policy, the approver and its "always".
import { homedir } from "node:os";
import { resolve } from "node:path";
import { cutMiddle } from "../content.js";
import { safeSink, type ApprovalRequest, type Approver } from "../deps.js";
import type { ApprovalDecision, EventSink } from "../types.js";
import { matchesToolName, normalizeCommand, type ApprovalLists } from "./approval-entries.js";
import { addApprovals, approvalsReader, type WarningSink } from "./approvals-file.js";
import type { CommandJudge, Decision, Gate, GateCall, Judged, LeavePlanAnswer, ModeHolder, PermissionMode, Verdict } from "./context.js";
import { configurationReason } from "./config-registry.js";
import { isInside, resolveRealPath, sensitivePathReason } from "./path-check.js";
import { decide, LEAVE_PLAN_UNAVAILABLE, policyCause, refusalText, shownOf, type RefusalCause } from "./policy.js";
import { isProcessSecretPath } from "./secret-paths.js";

/** Longest input of a tool call shown to the approver and in events, in characters (JSON); the middle is cut. */
const MAX_SHOWN_INPUT_CHARS = 300;

/** What `createGate` needs; every effect is injected. */
export interface GateOptions {
  /** The mode, or a holder whose mode may change: it is read when each call is settled. */
  mode: PermissionMode | ModeHolder;
  /** Asked only when the policy says ask. Must not throw (a throw counts as nobody answering). */
  approver: Approver;
  /** `workspace/exec-approvals.json`: read at every check, "always" answers added to it. */
  approvalsPath: string;
  /** Folders the file tools use unasked: the working folder and the workspace. */
  roots: readonly string[];
  /** Folders inside the roots never written unasked: the workspace's sessions (transcripts and steering inboxes). */
  protectedDirs?: readonly string[];
  /** The configuration later runs obey (`configurationPaths`): writes to it are asked in every mode but bypassPermissions. */
  configuration?: readonly string[];
  /** Relative paths are resolved from here. */
  cwd: string;
  /** Where `~` points and whose dotfiles are secrets; default the process's home. */
  home?: string;
  /** Receives an `approval` event for every refusal and every answer of the approver. */
  emit: EventSink;
  /** Warnings for the user (a corrupt approvals file...); default `warning` events. Each distinct one is sent once. */
  onWarning?: WarningSink;
  /** Judges shell commands; without one, every command needs approval. */
  judge?: CommandJudge;
  /** "Always" answers that last for the process (those the approvals file cannot hold); shared by the turns of a runtime. */
  remembered?: Set<string>;
}

/**
 * Builds the gate. `check` judges a call once: a tool name on the denied list is refused; a
 * command goes to the judge, a path to the path rules (inside the roots and not sensitive: reads
 * are safe, writes act), other tools by their declared access. `settle` then applies `decide` in
 * the mode of that moment, asks the approver when it says ask, and saves "always" answers. Never
 * throws for a refusal: it answers `{ allowed: false, reason }`, a sentence the model reads.
 */
export function createGate(options: GateOptions): Gate {
  return new PolicyGate(options);
}

class PolicyGate implements Gate {
  private readonly holder: ModeHolder;
  private readonly emit: EventSink;
  private readonly warn: WarningSink;
  private readonly readApprovals: () => ApprovalLists & { allowed: string[]; denied: string[] };
  private readonly places: ReturnType<typeof placesOf>;
  private readonly remembered: Set<string>;

  constructor(private readonly options: GateOptions) {
    this.holder = typeof options.mode === "string" ? { mode: options.mode } : options.mode;
    const emit = safeSink(options.emit);
    this.emit = emit;
    this.warn = onceEach(options.onWarning ?? ((message) => emit({ type: "warning", message })));
    this.readApprovals = approvalsReader(options.approvalsPath, this.warn);
    this.places = placesOf(options);
    this.remembered = options.remembered ?? new Set<string>();
  }

  get mode(): PermissionMode {
    return this.holder.mode;
  }

  async check(call: GateCall): Promise<Judged> {
    try {
      const verdict = await this.verdictOf(call);
      return { readOnly: verdict.kind === "safe", settle: () => this.settle(verdict, call.id) };
    } catch (error) {
      const reason = `Not run: the permission check of ${call.tool} failed (${error instanceof Error ? error.message : String(error)}).`;
      return { readOnly: false, settle: async () => ({ allowed: false, reason }) };
    }
  }

  async askLeavePlan(plan: string, toolUseId: string): Promise<LeavePlanAnswer> {
    const decision = await this.ask({ tool: "exit_plan_mode", command: plan, reason: "leave plan mode and carry out this plan", input: { plan } }, toolUseId);
    if (decision === "unavailable") return { answered: false, reason: LEAVE_PLAN_UNAVAILABLE };
    // "Always" is the wider of the two grants the user can give here; bypassPermissions is never one of them.
    return { answered: true, mode: decision === "allow_once" ? "default" : decision === "allow_always" ? "acceptEdits" : undefined };
  }

  deniesTool(tool: string): boolean {
    return matchesToolName(tool, this.readApprovals().denied, false);
  }

  private async verdictOf(call: GateCall): Promise<Verdict> {
    const approvals = this.readApprovals();
    const { access } = call;
    if (matchesToolName(call.tool, approvals.denied, false)) return toolVerdict(call, "denied", "it is on the denied list");
    if (typeof access === "string") {
      if (access !== "ask") return toolVerdict(call, access === "read" ? "safe" : "act", "");
      const allowed = matchesToolName(call.tool, approvals.allowed, true);
      return { ...toolVerdict(call, allowed ? "approved" : "needs", call.reason ?? "the tool is declared to need approval"), alwaysSaves: call.tool, denySaves: call.tool };
    }
    if ("command" in access) return this.commandVerdict(access.command, approvals);
    return this.places.pathVerdict(access.path, access.write === true);
  }

  private async commandVerdict(command: string, approvals: ApprovalLists): Promise<Verdict> {
    const subject = { kind: "command", command } as const;
    const denySaves = normalizeCommand(command);
    if (!this.options.judge) return { kind: "needs", readOnly: false, subject, reason: "no command judge is installed", denySaves };
    const judged = await this.options.judge.judge(command, approvals, this.places.place);
    const reason = judged.reasons.join("; ");
    return { kind: judged.kind, readOnly: judged.kind === "safe", subject, reason, denySaves, ...(judged.alwaysSaves !== undefined && { alwaysSaves: judged.alwaysSaves }) };
  }

  private async settle(verdict: Verdict, id: string): Promise<Decision> {
    // An "always" this process remembers counts as the approvals file's allowed list would.
    const remembered = verdict.kind === "needs" && this.remembered.has(keyOf(verdict));
    const outcome = decide(remembered ? { ...verdict, kind: "approved" } : verdict, this.holder.mode);
    if (outcome === "allow") return granted(verdict);
    if (outcome === "refuse") return this.refuse(id, verdict, policyCause(verdict, this.holder.mode));
    const decision = await this.ask(requestOf(verdict), id);
    await this.remember(verdict, decision);
    if (decision === "allow_once" || decision === "allow_always") return granted(verdict);
    return { allowed: false, reason: refusalText(decision === "unavailable" ? "unavailable" : "userDenied", verdict.subject, verdict.reason) };
  }

  private async ask(request: ApprovalRequest, id: string): Promise<ApprovalDecision> {
    let decision: ApprovalDecision;
    try {
      decision = await this.options.approver(request);
    } catch (error) {
      this.warn(`the approver failed (${error instanceof Error ? error.message : String(error)}); treating it as unavailable`);
      decision = "unavailable";
    }
    this.emit({ type: "approval", id, command: request.command, decision, reason: request.reason });
    return decision;
  }

  /** Saves "always" answers: in the approvals file when it can hold them, else for this process. */
  private async remember(verdict: Verdict, decision: ApprovalDecision): Promise<void> {
    const list = decision === "allow_always" ? "allowed" : decision === "deny_always" ? "denied" : undefined;
    const entry = list === "allowed" ? verdict.alwaysSaves : list === "denied" ? verdict.denySaves : undefined;
    if (list === "allowed" && entry === undefined) this.remembered.add(keyOf(verdict));
    if (list === undefined || entry === undefined) return;
    try {
      await addApprovals(this.options.approvalsPath, { [list]: [entry] }, this.warn);
    } catch (error) {
      this.warn(`could not save the decision to ${this.options.approvalsPath} (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  private refuse(id: string, verdict: Verdict, cause: RefusalCause): Decision {
    const reason = refusalText(cause, verdict.subject, verdict.reason);
    this.emit({ type: "approval", id, command: shownFor(verdict), decision: "denied", reason });
    return { allowed: false, reason };
  }
}

/** A verdict on a call judged by its declared access (or refused by name). */
function toolVerdict(call: GateCall, kind: Verdict["kind"], reason: string): Verdict {
  return { kind, readOnly: call.access === "read", subject: { kind: "tool", tool: call.tool, input: call.input }, reason };
}

function granted(verdict: Verdict): Decision {
  return { allowed: true, readOnly: verdict.kind === "safe", ...(verdict.kind === "contained" && { contained: true }), ...(verdict.path !== undefined && { path: verdict.path }) };
}

/** What an "always" that the approvals file cannot hold is remembered by, for this process. */
function keyOf(verdict: Verdict): string {
  return `${verdict.subject.kind}:${verdict.subject.kind === "command" ? normalizeCommand(verdict.subject.command) : shownOf(verdict.subject)}`;
}

/** The approver's question for a verdict. */
function requestOf(verdict: Verdict): ApprovalRequest {
  const { subject, reason } = verdict;
  const always = verdict.alwaysSaves !== undefined ? { alwaysSaves: verdict.alwaysSaves } : {};
  if (subject.kind === "command") return { tool: "run_command", command: subject.command, reason, ...always };
  if (subject.kind === "path") return { tool: subject.access === "write" ? "write_file" : "read_file", command: shownOf(subject), reason };
  return { tool: subject.tool, command: shownFor(verdict), reason, ...always, input: subject.input };
}

/** A verdict as the events show it: a tool call as its name and its input as JSON, cut when long. */
function shownFor(verdict: Verdict): string {
  const { subject } = verdict;
  if (subject.kind !== "tool") return shownOf(subject);
  let json: string;
  try {
    json = JSON.stringify(subject.input) ?? String(subject.input);
  } catch {
    json = String(subject.input);
  }
  return `${subject.tool} ${cutMiddle(json, MAX_SHOWN_INPUT_CHARS, (cut) => ` … ${cut} characters … `)}`;
}

/** A sink that passes each distinct message once. */
function onceEach(sink: WarningSink): WarningSink {
  const seen = new Set<string>();
  return (message) => {
    if (seen.has(message)) return;
    seen.add(message);
    sink(message);
  };
}

/**
 * The folders the gate judges paths against, resolved at the first check that needs them (a turn
 * whose tools touch no path never does): a root that cannot be resolved stands as written.
 */
function placesOf(options: GateOptions) {
  const settled = (path: string): string => {
    try {
      return resolveRealPath(resolve(options.cwd, path));
    } catch {
      return resolve(options.cwd, path);
    }
  };
  let resolved: { roots: string[]; protectedPaths: string[]; protectedDirs: string[]; configuration: string[] } | undefined;
  const folders = () =>
    (resolved ??= {
      roots: options.roots.map(settled),
      protectedPaths: [settled(options.approvalsPath)],
      protectedDirs: (options.protectedDirs ?? []).map(settled),
      configuration: (options.configuration ?? []).map(settled),
    });
  const place = { cwd: resolve(options.cwd), home: resolve(options.home ?? homedir()) };
  return {
    place,
    /** Inside the roots and not sensitive: reads are safe, writes act; /proc never; anything else needs the user. */
    pathVerdict(path: string, write: boolean): Verdict {
      const real = resolveRealPath(resolve(options.cwd, path));
      const access = write ? "write" : "read";
      const base = { readOnly: !write, subject: { kind: "path", access, path: real } as const, path: real };
      if (isProcessSecretPath(real)) return { ...base, kind: "never", reason: "/proc holds process environments, API key included" };
      const { roots, protectedPaths, protectedDirs, configuration } = folders();
      const sensitive = (write ? configurationReason(real, configuration) : null) ?? sensitivePathReason(real, access, protectedPaths, protectedDirs);
      if (sensitive === null && roots.some((root) => isInside(real, root))) return { ...base, kind: write ? "act" : "safe", reason: "" };
      return { ...base, kind: "needs", reason: sensitive ?? `it is outside the allowed folders (${roots.join(", ")})` };
    },
  };
}
