import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, type TestContext } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { createClient } from "../../src/model/client.js";
import { ensureWorkspace } from "../../src/runtime/workspace.js";
import { startScriptedModel, type Rule } from "../../src/testing/index.js";
import type { TurnResult } from "../../src/types.js";
import { loadCronJobs, parseCronJobs, type CronJob, createJobRunner, outcomeOf, formatRunLine, type RunRecord } from "../../src/cron/index.js";
import { tempDir } from "../helpers/temp-dir.js";

const SCHEMA = { type: "object", properties: { open: { type: "integer" }, oldest: { type: "string" } }, required: ["open", "oldest"] };

/** A workspace folder with this cron.json and these files (paths relative to it). */
async function workspaceWith(jobs: unknown[], files: Record<string, string> = {}): Promise<string> {
  const workspace = await tempDir("miniclaw-cron-output-");
  await writeFile(join(workspace, "cron.json"), JSON.stringify({ jobs }));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(workspace, path, ".."), { recursive: true });
    await writeFile(join(workspace, path), text);
  }
  return workspace;
}

async function loadError(workspace: string): Promise<string> {
  const error = await loadCronJobs(workspace).then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigError);
  return (error as Error).message;
}

const JOB = { name: "issues", schedule: "0 8 * * *", prompt: "count the open issues", outputSchema: "schemas/issues.json" };

describe("a cron job's outputSchema", () => {
  it("is read, relative to the workspace, when cron.json loads", async () => {
    const workspace = await workspaceWith([JOB], { "schemas/issues.json": JSON.stringify(SCHEMA) });
    const [job] = await loadCronJobs(workspace);
    expect(job).toMatchObject({ name: "issues", outputSchema: "schemas/issues.json", output: SCHEMA });
  });

  it.for([
    ["is missing", {}, /: job "issues": outputSchema: .*schemas\/issues\.json: no such file$/],
    ["is not JSON", { "schemas/issues.json": "{nope" }, /: job "issues": outputSchema: .*schemas\/issues\.json: not valid JSON: /],
    ["describes no object", { "schemas/issues.json": '{"type": "string"}' }, /: job "issues": outputSchema: .*schemas\/issues\.json: must be the JSON Schema of an object/],
  ] as Array<[string, Record<string, string>, RegExp]>)("is a ConfigError naming cron.json, the job and the file when the file %s", async ([, files, message]) => {
    const workspace = await workspaceWith([JOB], files);
    const error = await loadError(workspace);
    expect(error.startsWith(join(workspace, "cron.json"))).toBe(true);
    expect(error).toMatch(message);
  });

  it("does not go with a heartbeat, whose answer is HEARTBEAT_OK or an alert", () => {
    const text = JSON.stringify({ jobs: [{ name: "pulse", schedule: "*/30 * * * *", heartbeat: true, outputSchema: "s.json" }] });
    expect(() => parseCronJobs(text, "/ws/cron.json")).toThrow('/ws/cron.json: job "pulse": outputSchema: does not go with a heartbeat, whose answer is HEARTBEAT_OK or an alert');
  });
});

describe.concurrent("a cron run with an output schema", () => {
  async function run(ctx: TestContext, rules: Rule[]) {
    const model = await startScriptedModel(rules);
    ctx.onTestFinished(async () => {
      ctx.expect(model.rejected).toEqual([]);
      await model.close();
    });
    const workspace = join(await tempDir("miniclaw-cron-output-"), "ws");
    await ensureWorkspace(workspace);
    const env = { ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" };
    const runJob = createJobRunner({ assistant: { workspace, cwd: workspace, env, client: createClient({ env }) } });
    const job: CronJob = { name: "issues", schedule: "0 8 * * *", session: "cron:issues", heartbeat: false, enabled: true, prompt: "count the open issues", outputSchema: "s.json", output: SCHEMA };
    return { model, outcome: await runJob(job, new AbortController().signal) };
  }

  it("sends the schema as the output format and reports the object, not the text it came in", async (ctx) => {
    const { model, outcome } = await run(ctx, [{ reply: '{"open": 4, "oldest": "#12"}' }]);
    ctx.expect(outcome).toMatchObject({ status: "ok", output: { open: 4, oldest: "#12" } });
    ctx.expect(outcome).not.toHaveProperty("reply");
    ctx.expect((model.requests[0]!.body.output_config as { format?: { type: string } }).format?.type).toBe("json_schema");
  });

  it("is an error, with the validation problem, when no valid object came", async (ctx) => {
    const { outcome } = await run(ctx, [{ reply: '{"open": "four"}' }]);
    ctx.expect(outcome.status).toBe("error");
    ctx.expect(outcome.detail).toMatch(/^output_invalid: .*open/);
    ctx.expect(outcome).not.toHaveProperty("output");
  });
});

describe("a run record with an output", () => {
  const result = (output?: unknown): TurnResult => ({
    text: JSON.stringify(output),
    stopReason: "end_turn",
    usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costUsd: 0.001,
    iterations: 1,
    agentId: "main",
    sessionKey: "cron:issues",
    ...(output !== undefined && { output }),
  });

  it("keeps the object in place of the reply", () => {
    const job: CronJob = { name: "issues", schedule: "0 8 * * *", session: "cron:issues", heartbeat: false, enabled: true, prompt: "x" };
    expect(outcomeOf(job, result({ open: 4 }))).toEqual({ status: "ok", usage: result().usage, costUsd: 0.001, output: { open: 4 } });
  });

  it("is an error when the job has a schema and the turn ended on its own without an object (cut at max_tokens)", () => {
    const job: CronJob = { name: "issues", schedule: "0 8 * * *", session: "cron:issues", heartbeat: false, enabled: true, prompt: "x", outputSchema: "s.json", output: SCHEMA };
    const cut = { ...result(), text: '{"open": ', stopReason: "max_tokens" as const };
    expect(outcomeOf(job, cut)).toEqual({ status: "error", usage: cut.usage, costUsd: 0.001, reply: '{"open": ', detail: "max_tokens: the turn ended without a structured answer" });
  });

  it("shows it in brief on the run's line: its JSON, cut at 100 characters", () => {
    const record = (output: unknown): RunRecord => ({ job: "issues", start: "2026-11-29T07:30:00.000Z", end: "2026-11-29T07:30:02.000Z", status: "ok", output });
    expect(formatRunLine(record({ open: 4, oldest: "#12" }), "UTC")).toBe('[2026-11-29 07:30:00] issues ok 2.0s {"open":4,"oldest":"#12"}');
    const long = formatRunLine(record({ titles: Array.from({ length: 30 }, (_, i) => `issue ${i}`) }), "UTC");
    expect(long).toMatch(/^\[2026-11-29 07:30:00\] issues ok 2\.0s \{"titles":\["issue 0",.*…$/);
    expect(long.length).toBe('[2026-11-29 07:30:00] issues ok 2.0s '.length + 100);
  });
});
