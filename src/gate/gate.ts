// The gate the dispatcher asks once per call: the call's verdict (the approvals file, the command judge, the path rules), then the policy, the approver and its "always".
import { homedir } from "node:os";
import { resolve } from "node:path";
import { cutMiddle } from "../content.js";
import { safeSink, type ApprovalRequest, type Approver } from "../deps.js";
import { messageOf, orFallback } from "../errors.js";
import type { ApprovalDecision, EventSink } from "../types.js";
import { addApprovals, approvalsReader, matchesToolName, normalizeCommand, type ApprovalLists, type WarningSink } from "./approval-entries.js";
import type { CommandJudge, CommandPlace, Decision, Gate, GateCall, Judged, LeavePlanAnswer, ModeHolder, PermissionMode, Verdict } from "./context.js";
import { pathRules, type PathFolders } from "./path-check.js";
import { decide, LEAVE_PLAN_UNAVAILABLE, policyCause, refusalText, shownOf } from "./policy.js";

/** Longest input of a tool call shown to the approver and in events, in characters (JSON); the middle is cut. */
const MAX_SHOWN_INPUT_CHARS = 300;

/**
 * What `createGate` needs, every effect injected: the mode (or a holder, read as each call settles), the approver (a throw counts as nobody answering),
 * `emit` (every refusal and answer), warnings (each once), the judge (without one, commands are asked), and a runtime's shared "always" answers.
 */
export interface GateOptions extends PathFolders {
  mode: PermissionMode | ModeHolder;
  approver: Approver;
  home?: string;
  emit: EventSink;
  onWarning?: WarningSink;
  judge?: CommandJudge;
  remembered?: Set<string>;
  /** Entries read as if the approvals file held them too, never written to it (the CLI's --allowed-tools, --disallowed-tools). */
  approvals?: ApprovalLists;
}

/** `check` judges a call once (denied names, the judge, the path rules, declared access); `settle` applies the mode of that moment, asks, saves "always". */
export function createGate(options: GateOptions): Gate {
  return new PolicyGate(options);
}

class PolicyGate implements Gate {
  private readonly holder: ModeHolder;
  private readonly emit: EventSink;
  private readonly warn: WarningSink;
  private readonly readApprovals: () => Required<ApprovalLists>;
  private readonly pathVerdict: (path: string, write: boolean) => Verdict;
  private readonly place: CommandPlace;
  private readonly remembered: Set<string>;

  constructor(private readonly options: GateOptions) {
    this.holder = typeof options.mode === "string" ? { mode: options.mode } : options.mode;
    this.emit = safeSink(options.emit);
    const warn = options.onWarning ?? ((message) => this.emit({ type: "warning", message }));
    const seen = new Set<string>();
    // Each distinct warning once: the approvals file is read at every call.
    this.warn = (message) => {
      if (!seen.has(message)) warn(message);
      seen.add(message);
    };
    const read = approvalsReader(options.approvalsPath, this.warn);
    const extra = { allowed: options.approvals?.allowed ?? [], denied: options.approvals?.denied ?? [] };
    this.readApprovals = () => {
      const lists = read();
      return { allowed: [...lists.allowed, ...extra.allowed], denied: [...lists.denied, ...extra.denied] };
    };
    this.pathVerdict = pathRules(options);
    this.place = { cwd: resolve(options.cwd), home: resolve(options.home ?? homedir()) };
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
      const reason = `Not run: the permission check of ${call.tool} failed (${messageOf(error)}).`;
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
    if (access === "read" || access === "act") return toolVerdict(call, access === "read" ? "safe" : "act", "");
    if (access === "ask") {
      const kind = matchesToolName(call.tool, approvals.allowed, true) ? "approved" : "needs";
      return { ...toolVerdict(call, kind, call.reason ?? "the tool is declared to need approval"), alwaysSaves: call.tool, denySaves: call.tool };
    }
    if (!("command" in access)) return this.pathVerdict(access.path, access.write === true);
    const subject = { kind: "command", command: access.command } as const;
    const denySaves = normalizeCommand(access.command);
    if (!this.options.judge) return { kind: "needs", readOnly: false, subject, reason: "no command judge is installed", denySaves };
    const judged = await this.options.judge.judge(access.command, approvals, this.place);
    const always = judged.alwaysSaves !== undefined && { alwaysSaves: judged.alwaysSaves };
    return { kind: judged.kind, readOnly: judged.kind === "safe", subject, reason: judged.reasons.join("; "), denySaves, ...always };
  }

  private async settle(verdict: Verdict, id: string): Promise<Decision> {
    // An "always" this process remembers counts as the approvals file's allowed list would.
    const remembered = verdict.kind === "needs" && this.remembered.has(keyOf(verdict));
    const outcome = decide(remembered ? { ...verdict, kind: "approved" } : verdict, this.holder.mode);
    if (outcome === "allow") return granted(verdict);
    if (outcome === "refuse") {
      const reason = refusalText(policyCause(verdict, this.holder.mode), verdict.subject, verdict.reason);
      this.emit({ type: "approval", id, command: shownFor(verdict), decision: "denied", reason });
      return { allowed: false, reason };
    }
    const decision = await this.ask(requestOf(verdict), id);
    await this.remember(verdict, decision);
    if (decision === "allow_once" || decision === "allow_always") return granted(verdict);
    return { allowed: false, reason: refusalText(decision === "unavailable" ? "unavailable" : "userDenied", verdict.subject, verdict.reason) };
  }

  private async ask(request: ApprovalRequest, id: string): Promise<ApprovalDecision> {
    const decision = await Promise.resolve().then(() => this.options.approver(request)).catch((error: unknown): ApprovalDecision => {
      this.warn(`the approver failed (${messageOf(error)}); treating it as unavailable`);
      return "unavailable";
    });
    this.emit({ type: "approval", id, command: request.command, decision, reason: request.reason });
    return decision;
  }

  /** Saves "always" answers: in the approvals file when it can hold them, else for this process. */
  private async remember(verdict: Verdict, decision: ApprovalDecision): Promise<void> {
    const list = decision === "allow_always" ? "allowed" : decision === "deny_always" ? "denied" : undefined;
    const entry = list === "allowed" ? verdict.alwaysSaves : list === "denied" ? verdict.denySaves : undefined;
    if (list === "allowed" && entry === undefined) this.remembered.add(keyOf(verdict));
    if (list === undefined || entry === undefined) return;
    const { approvalsPath } = this.options;
    await addApprovals(approvalsPath, { [list]: [entry] }, this.warn).catch((error: unknown) => this.warn(`could not save the decision to ${approvalsPath} (${messageOf(error)})`));
  }
}

function toolVerdict(call: GateCall, kind: Verdict["kind"], reason: string): Verdict {
  return { kind, readOnly: call.access === "read", subject: { kind: "tool", tool: call.tool, input: call.input }, reason };
}

function granted(verdict: Verdict): Decision {
  return { allowed: true, readOnly: verdict.kind === "safe", ...(verdict.kind === "contained" && { contained: true }), ...(verdict.path !== undefined && { path: verdict.path }) };
}

/** What an "always" that the approvals file cannot hold is remembered by, for this process. */
function keyOf({ subject }: Verdict): string {
  return `${subject.kind}:${subject.kind === "command" ? normalizeCommand(subject.command) : shownOf(subject)}`;
}

function requestOf(verdict: Verdict): ApprovalRequest {
  const { subject, reason } = verdict;
  const always = verdict.alwaysSaves !== undefined ? { alwaysSaves: verdict.alwaysSaves } : {};
  if (subject.kind === "command") return { tool: "run_command", command: subject.command, reason, ...always };
  if (subject.kind === "path") return { tool: subject.access === "write" ? "write_file" : "read_file", command: shownOf(subject), reason };
  return { tool: subject.tool, command: shownFor(verdict), reason, ...always, input: subject.input };
}

/** A verdict as the events show it: a tool call as its name and its input as JSON, cut when long. */
function shownFor({ subject }: Verdict): string {
  if (subject.kind !== "tool") return shownOf(subject);
  const json = orFallback(() => JSON.stringify(subject.input), undefined) ?? String(subject.input);
  return `${subject.tool} ${cutMiddle(json, MAX_SHOWN_INPUT_CHARS, (cut) => ` … ${cut} characters … `)}`;
}
