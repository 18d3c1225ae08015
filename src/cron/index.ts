// miniclaw/cron: the one scheduler with its claims seam, the files backend, cron.json, the job runner, run records and heartbeats. The core never imports it.
export { ABORT_SETTLE_MS, checkSchedule, nextRunTime, startScheduler, type JobTimer, type Scheduler, type SchedulerOptions, type StartTimer } from "./cron.js";
export { fileCron, localClaims, steadyLease, STILL_GOING, type Claim, type ClaimsOptions, type CronBackend, type CronClaims, type RunLease } from "./claims.js";
export { CRON_FILE, DEFAULT_FINAL_PROMPT, hasEnded, loadCronJobs, parseCronJobs, type CronJob } from "./cron-config.js";
export { createJobRunner, outcomeOf, type JobRunnerOptions } from "./cron-job.js";
export { executeRun, formatRunLine, formatTime, skippedRecord, type RunJob, type RunOutcome, type RunRecord, type RunStatus } from "./cron-runs.js";
export { appendRunRecord, CRON_STATE_FILE, fileCronStore, pauseOf, readPausedJobs, readRunRecords, RUNS_FILE, setJobPause, type CronStore, type JobPause } from "./cron-store.js";
export { buildHeartbeatPrompt, hasHeartbeatContent, HEARTBEAT_FILE, interpretHeartbeatReply, isWithinActiveHours, type ActiveHours } from "./heartbeat.js";
