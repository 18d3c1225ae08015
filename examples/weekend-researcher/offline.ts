// The Weekend Researcher offline: the scripted model plays the researcher through three hourly wake-ups on a fake clock.
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { systemClock, type Clock } from "../../src/deps.js";
import { appendRunRecord, createJobRunner, executeRun, formatTime, hasEnded, loadCronJobs, nextRunTime, pauseOf, readPausedJobs, setJobPause, type CronJob, type JobPause, type RunJob, type RunRecord } from "../../src/cron/index.js";
import { addSteer } from "../../src/sessions/inbox.js";
import { startScriptedModel, type RecordedRequest } from "../../src/testing/index.js";
import { BRIEF_KEY, researcherRules } from "./scripted-researcher.js";

/** The example's workspace, copied to a temporary folder for each run. */
export const EXAMPLE_WORKSPACE = fileURLToPath(new URL("./workspace", import.meta.url));
/** What the user says between wake-ups 1 and 2. */
export const STEER_TEXT = "focus on the coast, not the mountains";
/** Friday 12 June 2026, 15:30 in Paris: half an hour before the first wake-up, two hours before the job's `until`. */
export const START = Date.parse("2026-06-12T15:30:00+02:00");
/** The wake-up after which the user steers. */
const STEER_AFTER = 1;
const WAKE_UPS = 3;

export interface OfflineOptions {
  /** Each run's budget in dollars, in place of cron.json's. */
  maxBudgetUsd?: number;
  /** Leave the temporary workspace in place (its path is in the result). Default: removed. */
  keep?: boolean;
  /** Each line of the story, as it happens. */
  onLine?: (line: string) => void;
}

/** One hourly wake-up as it went. */
export interface WakeUp {
  /** When it happened on the fake clock (epoch ms). */
  at: number;
  /** Its run; undefined when the job was off (paused or ended) and nothing ran. */
  record?: RunRecord;
  /** The requests the model received during it. */
  requests: RecordedRequest[];
  /** The brief in memory after it; undefined while there is none. */
  brief?: string;
}

export interface OfflineResult {
  /** The temporary workspace (removed unless `keep`). */
  workspace: string;
  job: CronJob;
  wakeUps: WakeUp[];
  /** The job's pause in cron/state.json after the last wake-up: why it is off, if it is. */
  pause?: JobPause;
  /** Requests the scripted model refused as invalid; zero when all went well. */
  rejected: number;
}

/**
 * Copies the example's workspace to a temporary folder, starts the scripted model, and drives
 * three hourly wake-ups of the `weekend` job through the job runner on a fake clock (no waiting):
 * the user steers the job's session after the first, and the third falls after `until`. Each run
 * is recorded as `miniclaw cron` records it (runs.jsonl, and a pause in state.json), and a job
 * that is off is left out as the scheduler leaves it out.
 */
export async function runOffline(options: OfflineOptions = {}): Promise<OfflineResult> {
  const say = options.onLine ?? (() => {});
  const model = await startScriptedModel(researcherRules());
  const workspace = join(await mkdtemp(join(tmpdir(), "weekend-researcher-")), "workspace");
  try {
    await cp(EXAMPLE_WORKSPACE, workspace, { recursive: true });
    const [loaded] = await loadCronJobs(workspace);
    if (!loaded) throw new Error(`no job in ${join(EXAMPLE_WORKSPACE, "cron.json")}`);
    const job: CronJob = { ...loaded, ...(options.maxBudgetUsd !== undefined && { maxBudgetUsd: options.maxBudgetUsd }) };
    const clock = fakeClock(START);
    const env = { ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "offline" };
    const runJob = createJobRunner({ assistant: { workspace, cwd: workspace, env }, clock });
    say(`Job ${job.name}: "${job.schedule}" (${job.tz ?? "local time"}) on session ${job.session}, at most $${job.maxBudgetUsd ?? "any"} a run, until ${job.until ?? "ever"}.`);
    const wakeUps: WakeUp[] = [];
    for (let hour = 1; hour <= WAKE_UPS; hour++) {
      if (hour === STEER_AFTER + 1) await steer(workspace, job, clock, say);
      clock.set(nextRunTime(job.schedule, job.tz, new Date(clock.now()))?.getTime() ?? clock.now());
      const wakeUp = await wake(workspace, job, runJob, clock, model.requests);
      say(describeWakeUp(hour, job, wakeUp, wakeUps.at(-1)?.brief));
      wakeUps.push(wakeUp);
    }
    const pause = (await readPausedJobs(workspace))[job.name];
    say(pause ? `The job is off: ${pause.reason} (in cron/state.json, as miniclaw cron list would show).` : "The job is still on.");
    say(`Requests to the scripted model: ${model.requests.length}, rejected: ${model.rejected.length}.`);
    return { workspace, job, wakeUps, ...(pause && { pause }), rejected: model.rejected.length };
  } finally {
    await model.close();
    if (!options.keep) await rm(join(workspace, ".."), { recursive: true, force: true });
  }
}

/** A clock that stands still until set; waits (retries, lock polls) pass in real time. */
function fakeClock(start: number): Clock & { set(at: number): void } {
  let now = start;
  return { now: () => now, sleep: systemClock.sleep, set: (at) => void (now = at) };
}

/** Half an hour after the last wake-up, the user steers the job's session through its durable inbox, as `miniclaw steer` does. */
async function steer(workspace: string, job: CronJob, clock: Clock & { set(at: number): void }, say: (line: string) => void): Promise<void> {
  clock.set(clock.now() + 30 * 60_000);
  await addSteer(join(workspace, "sessions"), job.session, STEER_TEXT, clock);
  say(`[${formatTime(clock.now(), job.tz)}] you steer ${job.session}: "${STEER_TEXT}"`);
}

/** One wake-up: nothing when the job is off, else a run recorded as the CLI records it, and the brief it left. */
async function wake(workspace: string, job: CronJob, runJob: RunJob, clock: Clock, requests: RecordedRequest[]): Promise<WakeUp> {
  const at = clock.now();
  const brief = (): Promise<string | undefined> => readFile(join(workspace, "memory", `${BRIEF_KEY}.md`), "utf8").catch(() => undefined);
  if ((await readPausedJobs(workspace))[job.name]) return { at, requests: [], ...withBrief(await brief()) };
  const first = requests.length;
  const record = await executeRun(job, runJob, { clock, signal: new AbortController().signal });
  await appendRunRecord(workspace, record);
  // Paused (a budget passed) or ended (the final run done after until): kept in cron/state.json, as the CLI keeps it.
  const pause = pauseOf(record);
  if (pause) await setJobPause(workspace, job.name, pause);
  return { at, record, requests: requests.slice(first), ...withBrief(await brief()) };
}

function withBrief(brief: string | undefined): { brief?: string } {
  return brief === undefined ? {} : { brief };
}

/** One readable line: when, what the run did, what its request carried, and what became of the brief. */
function describeWakeUp(hour: number, job: CronJob, wakeUp: WakeUp, before: string | undefined): string {
  const { record } = wakeUp;
  const head = `[${formatTime(wakeUp.at, job.tz)}] wake-up ${hour}`;
  if (!record) return `${head}: not run, the job is off.`;
  const final = hasEnded(job, wakeUp.at);
  const status = final ? `past until, so the final prompt; ${record.ended ? "the job ends" : record.status}` : record.status;
  const cost = record.costUsd === undefined ? "" : `, $${record.costUsd.toFixed(4)}`;
  const steered = carriesSteer(wakeUp.requests[0]) ? "; its request carries the steer" : "";
  const detail = record.status === "paused" && !final ? ` (${record.detail ?? "paused"})` : "";
  return `${head}: ${status}${cost}${steered}${detail}. ${describeBrief(wakeUp.brief, before)}`;
}

/** What became of the brief: its status and Saturday's plan, enough to tell versions apart. */
function describeBrief(brief: string | undefined, before: string | undefined): string {
  if (brief === undefined) return "No brief yet.";
  if (brief === before) return "Brief unchanged.";
  const status = /^Status: (.*)$/m.exec(brief)?.[1] ?? "no status";
  const saturday = /^- Saturday: (.*)$/m.exec(brief)?.[1] ?? "no plan";
  return `Brief ${before === undefined ? "written" : "rewritten"} (${status}): Saturday, ${saturday}.`;
}

/** True when the wake-up's first request ends with the steer: the run's own message, with the user's words joined to it. */
export function carriesSteer(request: RecordedRequest | undefined): boolean {
  return JSON.stringify(request?.body.messages?.at(-1) ?? {}).includes(`The user added: ${STEER_TEXT}`);
}
