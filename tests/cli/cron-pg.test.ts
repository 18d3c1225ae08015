import { afterEach, describe, it } from "vitest";
import { JOB, readRunRows, setupWorkers } from "../fixtures/cron-pg/workers.js";
import { runMain } from "../helpers/cli.js";
import { databaseUnavailable, newTestSchema, withTestClient, type TestSchema } from "../helpers/pg.js";
import { until } from "../helpers/manual-clock.js";

const unavailable = await databaseUnavailable();

describe.skipIf(unavailable !== undefined)("miniclaw cron on PostgreSQL", () => {
  let schema: TestSchema;
  afterEach(async () => schema.drop());

  it("skips and records the ticks that come while a long run is going; cron runs and cron list read the table", async ({ expect }) => {
    schema = newTestSchema();
    const t = await setupWorkers(schema, "*/1 * * * * *", 2_600);
    try {
      const workers = [t.start(), t.start()];
      await until(() => workers.some((w) => / pulse ok /.test(w.stdout)), 40_000, "a run to end");
      for (const w of workers) w.child.kill("SIGTERM");
      await Promise.all(workers.map((w) => w.exited));
      const runs = await readRunRows(schema);
      const skipped = runs.filter((run) => run.status === "skipped");
      expect(skipped.length).toBeGreaterThanOrEqual(1);
      expect(skipped.every((run) => run.detail === "the previous run is still going")).toBe(true);
      expect(t.model.requests.length).toBe(runs.filter((run) => run.status !== "skipped").length);
      const list = await runMain(["cron", "list", "--workspace", t.workspace], { env: t.env, cwd: t.dir });
      expect(list.code).toBe(0);
      expect(list.stdout).toMatch(new RegExp(`^${JOB}\\s+enabled\\s+next .*\\n  last: \\[[^\\]]+\\] ${JOB} (ok|skipped) `));
      const shown = await runMain(["cron", "runs", JOB, "--workspace", t.workspace], { env: t.env, cwd: t.dir });
      expect(shown.stdout.trim().split("\n")).toHaveLength(Math.min(runs.length, 20));
      expect(shown.stdout).toMatch(/ pulse skipped 0\.0s \(the previous run is still going\)/);
    } finally {
      await t.close();
    }
  }, 60_000);

  it("cron run JOB runs against the database: its record in cron_runs, and a stored pause lifted by --force", async ({ expect }) => {
    schema = newTestSchema();
    const t = await setupWorkers(schema, "0 9 * * *", 0);
    try {
      const cli = (...args: string[]) => runMain(["cron", ...args, "--workspace", t.workspace], { env: t.env, cwd: t.dir });
      const first = await cli("run", JOB);
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/ pulse ok \d+\.\ds "all quiet"\n$/);
      const table = (name: string) => `"${schema.schema}".${name}`;
      await withTestClient((client) => client.query(`INSERT INTO ${table("cron_pauses")} (job, since, reason) VALUES ($1, now(), 'over budget')`, [JOB]));
      const refused = await cli("run", JOB);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/pulse is paused since .* \(over budget\): miniclaw cron run pulse --force runs it anyway/);
      const forced = await cli("run", JOB, "--force");
      expect(forced.code).toBe(0);
      expect(forced.stderr).toMatch(/pulse is resumed/);
      expect((await withTestClient((client) => client.query(`SELECT job FROM ${table("cron_pauses")}`))).rows).toEqual([]);
      expect((await readRunRows(schema)).map((run) => [run.tick, run.status])).toEqual([
        [null, "ok"],
        [null, "ok"],
      ]);
    } finally {
      await t.close();
    }
  }, 30_000);
});
