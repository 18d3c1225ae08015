// One cron job run through the assistant: active hours, the heartbeat checklist, the final run after `until`, a non-interactive turn, its status.
import { join } from "node:path";
import { refuseApprover, systemClock, type Clock } from "../deps.js";
import { isSuccessfulStop, type AgentEvent, type CacheTtl, type TurnResult } from "../types.js";
import { openAssistant, type AssistantOptions } from "../assistant/assistant.js";
import { DEFAULT_FINAL_PROMPT, hasEnded, type CronJob } from "./cron-config.js";
import type { RunJob, RunOutcome } from "./cron-runs.js";
import { nextRunTime } from "./cron.js";
import { buildHeartbeatPrompt, hasHeartbeatContent, HEARTBEAT_FILE, interpretHeartbeatReply, isWithinActiveHours } from "./heartbeat.js";
import { readRegularText } from "../fs/regular-file.js";

/** Options of `createJobRunner`. */
export interface JobRunnerOptions {
  /** How to open the assistant (workspace, env, client, model...); each run opens its own, so edited SOUL.md files apply. */
  assistant: Omit<AssistantOptions, "defaultAgent" | "approver">;
  /** Active hours and timestamps; default the system clock. */
  clock?: Clock;
  /** Events of each run's turn, with the job they belong to; must not throw. */
  onEvent?: (job: CronJob, event: AgentEvent) => void;
}

/**
 * The `runJob` of the scheduler and of `cron run`: skips outside active hours or on an empty checklist (no model call), else
 * sends one message with the refusing approver (nothing waits for a human); after `until`, the final prompt, ending the job.
 * Steering left in the session's inbox joins the message; times come from the runner's clock. Throws only what opening the assistant throws (ConfigError: no such agent).
 */
export function createJobRunner(opts: JobRunnerOptions): RunJob {
  const clock = opts.clock ?? systemClock;
  const workspace = opts.assistant.workspace;
  return async (job, signal) => {
    const now = clock.now();
    if (job.activeHours && !isWithinActiveHours(now, job.activeHours, job.tz)) {
      return { status: "skipped", detail: `outside active hours ${job.activeHours.start}–${job.activeHours.end}${job.tz ? ` ${job.tz}` : ""}` };
    }
    const final = hasEnded(job, now);
    const prompt = final ? { text: job.finalPrompt ?? DEFAULT_FINAL_PROMPT } : job.heartbeat ? await heartbeatPrompt(workspace, job) : { text: job.prompt ?? "" };
    if (prompt.skip) return { status: "skipped", detail: prompt.skip };
    const agent = job.agent !== undefined && { defaultAgent: job.agent };
    const budget = job.maxBudgetUsd !== undefined && { maxBudgetUsd: job.maxBudgetUsd };
    const turn = { cacheTtl: cacheTtlOf(job, now), ...opts.assistant.turn, ...budget };
    const assistant = await openAssistant({ ...opts.assistant, ...agent, clock, includeTime: true, turn });
    try {
      const events = opts.onEvent && { onEvent: (event: AgentEvent) => opts.onEvent?.(job, event) };
      const output = job.output !== undefined && { turn: { output: job.output } };
      const result = await assistant.send(prompt.text, { sessionKey: job.session, approver: refuseApprover, signal, ...events, ...output });
      const outcome = outcomeOf(job, result);
      return final ? finalOutcome(job, outcome) : outcome;
    } finally {
      await assistant.close();
    }
  };
}

/** Five minutes of cache outlive no gap between runs longer than that: such a job's requests are cached for an hour (2× the write price, read next run at 0.1×). */
export function cacheTtlOf(job: CronJob, now: number): CacheTtl {
  const next = nextRunTime(job.schedule, job.tz, new Date(now));
  const after = next && nextRunTime(job.schedule, job.tz, next);
  return next && after && after.getTime() - next.getTime() > 5 * 60_000 ? "1h" : "5m";
}

/**
 * The outcome of a run after `until`: it keeps its status and says why the job ended, stored like a pause (`cron run --force`
 * runs it once more). A failed final run leaves the job on, so the next tick makes it again; a skipped one made no call.
 */
function finalOutcome(job: CronJob, outcome: RunOutcome): RunOutcome {
  if (outcome.status === "skipped") return outcome;
  if (outcome.status === "error") return { ...outcome, detail: `${outcome.detail ?? "failed"}; the final run (after until ${job.until}) is tried again at the next tick` };
  return { ...outcome, ended: `ended at its until ${job.until} after its final run` };
}

/** The message of a heartbeat run, or why there is none. */
async function heartbeatPrompt(workspace: string, job: CronJob): Promise<{ text: string; skip?: string }> {
  const checklist = await readRegularText(join(workspace, HEARTBEAT_FILE)).catch(() => undefined);
  if (checklist === undefined) return { text: "", skip: `no ${HEARTBEAT_FILE} in the workspace` };
  if (!hasHeartbeatContent(checklist)) return { text: "", skip: `${HEARTBEAT_FILE} has no items to check` };
  return { text: buildHeartbeatPrompt(checklist, job.prompt) };
}

/** The status of a finished turn. Authentication failures and a spent budget pause the job: every tick would fail the same way, or keep spending. */
export function outcomeOf(job: CronJob, result: TurnResult): RunOutcome {
  const spent = { usage: result.usage, costUsd: result.costUsd };
  const replied = result.text ? { ...spent, reply: result.text } : spent;
  const overspent = job.maxBudgetUsd !== undefined && result.costUsd > job.maxBudgetUsd;
  const overspentReason = `the run cost $${result.costUsd.toFixed(4)}, over its budget of $${job.maxBudgetUsd}; raise maxBudgetUsd in cron.json to let it run`;
  const pause = pauseReason(result) ?? (overspent ? overspentReason : undefined);
  if (pause) return { status: "paused", ...replied, detail: pause };
  if (!isSuccessfulStop(result.stopReason)) {
    const why = result.stopReason === "error" ? (result.error ?? "the turn failed") : `${result.stopReason}${result.error ? `: ${result.error}` : ""}`;
    return { status: "error", ...replied, detail: why };
  }
  // A structured answer is the run's result; its text is the same object as JSON, so it is not kept twice.
  if (result.output !== undefined) return { status: "ok", ...spent, output: result.output };
  if (job.output !== undefined) return { status: "error", ...replied, detail: `${result.stopReason}: the turn ended without a structured answer` };
  if (!job.heartbeat) return { status: "ok", ...spent, reply: result.text };
  const { ok, text } = interpretHeartbeatReply(result.text);
  return { status: ok ? "ok" : "alert", ...spent, ...(text && { reply: text }) };
}

/** Why a turn's failure should pause its job, or undefined when the next tick may well succeed. */
function pauseReason(result: TurnResult): string | undefined {
  if (result.stopReason === "budget_exceeded") return `${result.error ?? "over budget"}; raise maxBudgetUsd in cron.json to let it run`;
  if (result.stopReason === "error" && (result.errorStatus === 401 || result.errorStatus === 403)) return `${result.error}; check the credentials the API was given`;
  // A server without the agent's web tools, or one that does not know its model, would refuse every tick the same way.
  const webRefused = result.errorStatus === 400 && /offers the web server tools/.test(result.error ?? "");
  return result.stopReason === "error" && (webRefused || result.errorStatus === 404) ? `${result.error}; then \`cron run JOB --force\`` : undefined;
}
