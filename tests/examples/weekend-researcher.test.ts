// The Weekend Researcher example: its one command, the steer in wake-up 2, the brief rewritten, the budget pause, the end at until.
import { execFile } from "node:child_process";
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, it, type TestContext } from "vitest";
import { EXAMPLE_WORKSPACE, runOffline, STEER_TEXT, type OfflineResult } from "../../examples/weekend-researcher/offline.js";
import { main } from "../../examples/weekend-researcher/run.js";
import { BRIEF_KEY, researcherRules } from "../../examples/weekend-researcher/scripted-researcher.js";
import { loadCronJobs } from "../../src/cron/cron-config.js";
import { startScriptedModel, type RecordedRequest } from "../../src/testing/index.js";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const STEERED = `The user added: ${STEER_TEXT}`;

/** The last message of a request as text: the run's own message (with steering joined to it) in a wake-up's first request. */
const lastMessage = (request: RecordedRequest | undefined): string => JSON.stringify(request?.body.messages?.at(-1) ?? null);

/** The example's run, with its zero rejected requests checked. */
async function offline(ctx: TestContext, options: Parameters<typeof runOffline>[0] = {}): Promise<OfflineResult> {
  const result = await runOffline(options);
  ctx.expect(result.rejected).toBe(0);
  return result;
}

describe.concurrent("the Weekend Researcher example", () => {
  it("runs from its one command, npm run example:researcher, and tells the story in a few lines", async (ctx) => {
    const env = Object.fromEntries(Object.entries(cleanEnv()).filter(([name]) => !/^npm_/i.test(name)));
    const { stdout } = await promisify(execFile)("npm", ["run", "-s", "example:researcher"], { cwd: ROOT, env });
    const lines = stdout.trimEnd().split("\n");
    ctx.expect(lines.map((line) => line.replace(/^\[[^\]]+\] /, "").split(/[:,]/)[0])).toEqual([
      "The Weekend Researcher",
      "Job weekend",
      "wake-up 1",
      "you steer agent",
      "wake-up 2",
      "wake-up 3",
      "The job is off",
      "Requests to the scripted model",
    ]);
    ctx.expect(lines[4]).toMatch(/wake-up 2: ok, .*its request carries the steer\. Brief rewritten \(draft, revised after the user's steer\): Saturday, the coast path/);
    ctx.expect(lines[5]).toMatch(/wake-up 3: past until, so the final prompt; the job ends.* Brief rewritten \(final, frozen at the last wake-up\)/);
    ctx.expect(lines.at(-1)).toBe("Requests to the scripted model: 9, rejected: 0.");
    ctx.expect(await readFile(join(ROOT, "examples", "weekend-researcher", "README.md"), "utf8")).toContain(`\`\`\`\nnpm run example:researcher\n\`\`\``);
  });

  it("carries the steer sent before wake-up 2 in that wake-up's request, and in no other", async (ctx) => {
    const { wakeUps } = await offline(ctx);
    ctx.expect(wakeUps.map((w) => lastMessage(w.requests[0]).includes(STEERED))).toEqual([false, true, false]);
    ctx.expect(wakeUps.map((w) => w.requests.filter((r) => lastMessage(r).includes(STEERED)).length)).toEqual([0, 1, 0]);
  });

  it("rewrites the brief in memory at every wake-up: a draft, the steered draft, the frozen final", async (ctx) => {
    const { wakeUps, workspace } = await offline(ctx, { keep: true });
    ctx.onTestFinished(() => rm(join(workspace, ".."), { recursive: true, force: true }));
    const briefs = wakeUps.map((w) => w.brief ?? "");
    ctx.expect(new Set(briefs).size).toBe(3);
    ctx.expect(briefs.map((b) => /^Status: (.*)$/m.exec(b)?.[1])).toEqual(["draft", "draft, revised after the user's steer", "final, frozen at the last wake-up"]);
    ctx.expect(briefs[0]).toMatch(/Sintra hills/);
    ctx.expect(briefs[1]).toMatch(new RegExp(`Steering: ${STEER_TEXT}[\\s\\S]*Saturday: the coast path`));
    ctx.expect(briefs[1]).not.toMatch(/Sintra|Arrábida/);
    ctx.expect(await readFile(join(workspace, "memory", `${BRIEF_KEY}.md`), "utf8")).toBe(briefs[2]);
  });

  it("ends the job after until: the final prompt at wake-up 3, then the job off in cron/state.json", async (ctx) => {
    const { wakeUps, pause, job } = await offline(ctx);
    ctx.expect(job.until).toBe("2026-06-12T17:30:00+02:00");
    ctx.expect(wakeUps.map((w) => w.record?.status)).toEqual(["ok", "ok", "ok"]);
    ctx.expect(wakeUps.map((w) => w.record?.ended)).toEqual([undefined, undefined, "ended at its until 2026-06-12T17:30:00+02:00 after its final run"]);
    ctx.expect(lastMessage(wakeUps[2]!.requests[0])).toContain(job.finalPrompt!);
    ctx.expect(lastMessage(wakeUps[2]!.requests[0])).not.toContain(job.prompt!);
    ctx.expect(pause?.reason).toBe("ended at its until 2026-06-12T17:30:00+02:00 after its final run");
  });

  it("pauses the job when a run passes a budget too small, and runs it no more", async (ctx) => {
    const { wakeUps, pause } = await offline(ctx, { maxBudgetUsd: 0.001 });
    ctx.expect(wakeUps.map((w) => w.record?.status)).toEqual(["paused", undefined, undefined]);
    ctx.expect(wakeUps.map((w) => w.requests.length)).toEqual([1, 0, 0]);
    ctx.expect(pause?.reason).toMatch(/passed its budget of \$0\.001; raise maxBudgetUsd in cron\.json/);
  });

  it("refuses a budget that is not a number of dollars", async (ctx) => {
    let out = "";
    ctx.expect(await main(["--budget", "lots"], { write: (text: string) => (out += text) })).toBe(1);
    ctx.expect(out).toBe('--budget takes a number of dollars above 0, not "lots"\n');
  });

  it("has a workspace miniclaw runs as it is: cron list, then steer and a wake-up through the command line", async (ctx) => {
    const model = await startScriptedModel(researcherRules());
    ctx.onTestFinished(async () => {
      ctx.expect(model.rejected).toEqual([]);
      await model.close();
    });
    const workspace = join(await tempDir("miniclaw-weekend-"), "weekend");
    await cp(EXAMPLE_WORKSPACE, workspace, { recursive: true });
    // An until still ahead on the real clock, which `cron run` reads, makes this wake-up an ordinary one.
    const [job] = await loadCronJobs(workspace);
    await writeFile(join(workspace, "cron.json"), JSON.stringify({ jobs: [{ ...job, until: "2099-01-01T00:00:00Z" }] }));
    const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" });
    const cli = (...args: string[]) => runMain([...args, "--workspace", workspace], { env, cwd: workspace });
    ctx.expect((await cli("cron", "list")).stdout).toMatch(/^weekend +enabled +next .* Europe\/Paris +0 \* \* \* \* \(Europe\/Paris\)\n$/);
    ctx.expect((await cli("steer", "agent:researcher:weekend", STEER_TEXT)).code).toBe(0);
    const run = await cli("cron", "run", "weekend");
    ctx.expect(run.stdout).toMatch(/weekend ok .*"Followed your steer/);
    ctx.expect(lastMessage(model.requests[0])).toContain(STEERED);
    ctx.expect(await readFile(join(workspace, "memory", `${BRIEF_KEY}.md`), "utf8")).toMatch(/Status: draft, revised after the user's steer/);
  });
});
