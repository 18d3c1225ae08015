// The scenario in the suite: 3 real `miniclaw cron` workers on one schema, a job every 3 s, one SIGKILLed mid-run (a file of its own, so it runs beside the other cron tests).
import { afterEach, describe, it } from "vitest";
import { checkScenario, runScenario } from "../fixtures/cron-pg/scenario.js";
import { databaseUnavailable, newTestSchema, type TestSchema } from "../helpers/pg.js";

const unavailable = await databaseUnavailable();

describe.skipIf(unavailable !== undefined)("miniclaw cron workers on PostgreSQL", () => {
  let schema: TestSchema;
  afterEach(async () => schema.drop());

  it("runs each tick once across 3 worker processes, never overlapping, and retries the run of a SIGKILLed worker once", async ({ expect }) => {
    schema = newTestSchema();
    const result = await runScenario(schema, { workers: 3, schedule: "*/3 * * * * *", intervalMs: 3_000, runMs: 1_200, durationMs: 12_000, killAfterMs: 3_000 });
    checkScenario(result, 3_000);
    expect(result.ticks.length).toBeGreaterThanOrEqual(4);
  }, 60_000);
});
