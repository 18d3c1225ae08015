import { afterEach, describe, it } from "vitest";
import { checkScenario, runScenario } from "../fixtures/cron-pg/scenario.js";
import { databaseUnavailable, newTestSchema, type TestSchema } from "../helpers/pg.js";

const unavailable = await databaseUnavailable();

// The full minute (the suite runs the same scenario for about 15 s): 3 workers, a job every 3 s, one worker SIGKILLed mid-run.
describe.skipIf(unavailable !== undefined)("miniclaw cron on PostgreSQL for a minute", () => {
  let schema: TestSchema;
  afterEach(async () => schema.drop());

  it("runs every tick of a minute once across 3 workers, never overlapping, and retries a killed worker's run once", async ({ expect }) => {
    schema = newTestSchema();
    const result = await runScenario(schema, { workers: 3, schedule: "*/3 * * * * *", intervalMs: 3_000, runMs: 1_200, durationMs: 60_000, killAfterMs: 20_000 });
    checkScenario(result, 3_000);
    expect(result.ticks.length).toBeGreaterThanOrEqual(19);
    const real = result.runs.filter((run) => run.status === "ok");
    const workers = new Set(real.map((run) => run.worker));
    const seconds = real.map((run) => (run.end - run.start) / 1000);
    console.log(
      `cron soak: ${result.ticks.length} ticks, ${real.length} runs ok on ${workers.size} workers, ${result.runs.filter((r) => r.status === "skipped").length} skipped, ` +
        `${result.runs.filter((r) => r.status === "error").length} dead-worker record; run ${Math.min(...seconds).toFixed(2)}–${Math.max(...seconds).toFixed(2)} s; ${result.requests} model requests`,
    );
  }, 180_000);
});
