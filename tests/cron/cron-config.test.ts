import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { TEMPLATE_WORKSPACE } from "../../src/paths.js";
import { loadCronJobs, parseCronJobs, checkSchedule, nextRunTime } from "../../src/cron/index.js";
import { tempDir } from "../helpers/temp-dir.js";

const FILE = "/ws/cron.json";
const parse = (data: unknown): ReturnType<typeof parseCronJobs> => parseCronJobs(JSON.stringify(data), FILE);
const errorOf = (data: unknown): string => {
  try {
    typeof data === "string" ? parseCronJobs(data, FILE) : parse(data);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
};

describe("cron.json", () => {
  it("applies the defaults: session cron:<name>, enabled, not a heartbeat", () => {
    expect(parse({ jobs: [{ name: "daily", schedule: "0 9 * * *", prompt: "hi" }] })).toEqual([
      { name: "daily", schedule: "0 9 * * *", prompt: "hi", session: "cron:daily", enabled: true, heartbeat: false },
    ]);
  });

  it("keeps every optional field", () => {
    const job = { name: "hb", schedule: "*/30 * * * *", tz: "Europe/Paris", agent: "main", session: "s", heartbeat: true, enabled: false, activeHours: { start: "08:00", end: "22:00" }, maxBudgetUsd: 0.2 };
    expect(parse({ jobs: [job] })).toEqual([job]);
  });

  it("loads the shipped example: a morning check and a heartbeat, both disabled", async () => {
    const jobs = await loadCronJobs(TEMPLATE_WORKSPACE);
    expect(jobs.map((j) => [j.name, j.schedule, j.heartbeat, j.enabled])).toEqual([
      ["morning-check", "30 7 * * *", false, false],
      ["heartbeat", "*/30 * * * *", true, false],
    ]);
  });

  it.each([
    ["bad JSON", "{ jobs: [", /^\/ws\/cron\.json: not valid JSON/],
    ["no jobs list", { job: [] }, /^\/ws\/cron\.json: jobs: must be a list of jobs/],
    ["an unknown top-level field", { jobs: [], job: [] }, /^\/ws\/cron\.json: unknown field "job" \(did you mean "jobs"\?\) \(known: jobs\)/],
    ["a missing name", { jobs: [{ schedule: "* * * * *", prompt: "x" }] }, /^\/ws\/cron\.json: jobs\[0\]: name: is required/],
    ["a bad schedule", { jobs: [{ name: "m", schedule: "61 * * * *", prompt: "x" }] }, /^\/ws\/cron\.json: job "m": schedule: "61 \* \* \* \*" is not a valid cron expression \(.*59/],
    ["too few fields", { jobs: [{ name: "m", schedule: "* * *", prompt: "x" }] }, /job "m": schedule: "\* \* \*" has 3 fields/],
    ["a date instead of a schedule", { jobs: [{ name: "m", schedule: "2026-12-01", prompt: "x" }] }, /job "m": schedule: .* has 1 field;/],
    ["an unknown time zone", { jobs: [{ name: "m", schedule: "* * * * *", tz: "Mars/Olympus", prompt: "x" }] }, /job "m": tz: is not a known time zone/],
    ["a typo in a field", { jobs: [{ name: "m", schedul: "* * * * *", prompt: "x" }] }, /job "m": schedule: is required/],
    ["an unknown field", { jobs: [{ name: "m", schedule: "* * * * *", prompt: "x", cron: 1 }] }, /job "m": unknown field "cron" \(known: name, schedule,/],
    ["neither prompt nor heartbeat", { jobs: [{ name: "m", schedule: "* * * * *" }] }, /job "m": needs a "prompt", or "heartbeat": true/],
    ["bad active hours", { jobs: [{ name: "m", schedule: "* * * * *", heartbeat: true, activeHours: { start: "8am", end: "22:00" } }] }, /job "m": activeHours\.start: must be a time such as "08:00"/],
    ["a duplicate name", { jobs: [{ name: "m", schedule: "* * * * *", prompt: "x" }, { name: "m", schedule: "* * * * *", prompt: "y" }] }, /job "m": name: is used by another job/],
    ["a name with a space", { jobs: [{ name: "my job", schedule: "* * * * *", prompt: "x" }] }, /job "my job": name: may hold only/],
  ])("rejects %s with one line naming the file, the job and the field", (_what, data, pattern) => {
    const message = errorOf(data);
    expect(message).toMatch(pattern);
    expect(message).not.toMatch(/\n/);
  });

  it("names the file when it is missing", async () => {
    const dir = await tempDir("miniclaw-cron-");
    await expect(loadCronJobs(dir)).rejects.toThrow(new RegExp(`^${join(dir, "cron.json")} not found`));
  });
});

describe("checkSchedule and nextRunTime", () => {
  it("accepts 5 fields, 6 fields with seconds, and aliases", () => {
    expect(checkSchedule("30 7 * * *")).toBeUndefined();
    expect(checkSchedule("*/1 * * * * *")).toBeUndefined();
    expect(checkSchedule("@daily")).toBeUndefined();
    expect(checkSchedule("30 7 * * 1-5", "Asia/Tokyo")).toBeUndefined();
  });

  it("computes the next run in the job's time zone", () => {
    const from = new Date("2026-11-29T12:00:00Z");
    expect(nextRunTime("30 7 * * *", "UTC", from)?.toISOString()).toBe("2026-11-30T07:30:00.000Z");
    expect(nextRunTime("30 7 * * *", "Europe/Paris", from)?.toISOString()).toBe("2026-11-30T06:30:00.000Z");
  });
});
