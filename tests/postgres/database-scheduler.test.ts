// The library's entry to cron on PostgreSQL: two workers opened with openDatabaseScheduler share one tick, then stop cleanly.
import { describe, expect, it } from "vitest";
import { openDatabaseScheduler } from "../../src/postgres/index.js";
import type { CronJob, RunRecord, StartTimer } from "../../src/cron/index.js";
import { databaseUnavailable, newTestSchema, withTestClient } from "../helpers/pg.js";
import { until } from "../helpers/manual-clock.js";

const unavailable = await databaseUnavailable();
const JOB: CronJob = { name: "digest", schedule: "0 0 0 * * *", session: "cron:digest", heartbeat: false, enabled: true, prompt: "go" };

describe("openDatabaseScheduler", () => {
  it("refuses to start without a database, in one line", async () => {
    await expect(openDatabaseScheduler({ jobs: [JOB], runJob: async () => ({ status: "ok" }), log: () => {}, onRecord: () => {} })).rejects.toThrow(
      /^openDatabaseScheduler needs a database: the database option, or MINICLAW_DATABASE_URL in env$/,
    );
  });

  it.skipIf(unavailable !== undefined)("runs a tick both workers fire once, on one of them, and gives the database back on stop", async () => {
    const schema = newTestSchema();
    try {
      const fires: Array<(at: Date) => void> = [];
      const startTimer: StartTimer = (_job, tick) => (fires.push(tick), { cancel: () => undefined });
      let runs = 0;
      const records: RunRecord[] = [];
      const open = () =>
        openDatabaseScheduler({
          database: { url: schema.url, schema: schema.schema },
          jobs: [JOB],
          runJob: async () => ((runs += 1), { status: "ok", reply: "done" }),
          startTimer,
          log: () => {},
          onRecord: (record) => void records.push(record),
        });
      const [a, b] = [await open(), await open()];
      const tick = new Date(new Date().setHours(0, 0, 0, 0) + 1_000);
      for (const fire of fires) fire(tick);
      await until(() => records.length > 0, 10_000, "a run to be recorded");
      await Promise.all([a.stop(5_000), b.stop(5_000)]);
      expect(runs).toBe(1);
      expect(records.map((record) => [record.job, record.status, record.reply])).toEqual([["digest", "ok", "done"]]);
      const stored = await withTestClient((client) => client.query(`SELECT job, status FROM "${schema.schema}".cron_runs`));
      expect(stored.rows).toEqual([{ job: "digest", status: "ok" }]);
    } finally {
      await schema.drop();
    }
  }, 30_000);
});
