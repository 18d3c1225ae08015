// A silent partition (a proxy that stops forwarding, closing nothing) between miniclaw and a throwaway cluster: the turn ends
// within twice the database timeout, the session's lock is free for the next worker within that bound, the REPL says the
// database is unreachable and goes on once it returns. Tests use a 1 s timeout; the default's bound is checked on the config.
import { join } from "node:path";
import { describe, it } from "vitest";
import { openPostgres } from "../../src/postgres/index.js";
import { DEFAULT_TIMEOUT_MS, resolveDatabaseConfig } from "../../src/postgres/config.js";
import { cleanEnv, startMain } from "../helpers/cli.js";
import { until } from "../helpers/manual-clock.js";
import { clustersUnavailable } from "../helpers/pg-cluster.js";
import { rigFor, transcript } from "./fault-rig.js";

const unavailable = clustersUnavailable("PostgreSQL partition tests");
const KEY = "agent:main:cut";
const TIMEOUT_MS = 1_000;
/** Twice the timeout, and what a loaded machine adds to it. */
const BOUND_MS = 2 * TIMEOUT_MS + 1_500;

describe("the database timeout", () => {
  it("defaults to a bound under 20 s for a turn cut off, and is set by MINICLAW_DATABASE_TIMEOUT_MS or the option", ({ expect }) => {
    const url = "postgres://u@h:5432/db";
    expect(2 * resolveDatabaseConfig(url, {})!.timeoutMs).toBeLessThanOrEqual(20_000);
    expect(resolveDatabaseConfig(url, {})!.timeoutMs).toBe(DEFAULT_TIMEOUT_MS);
    expect(resolveDatabaseConfig(url, { MINICLAW_DATABASE_TIMEOUT_MS: "1500" })!.timeoutMs).toBe(1_500);
    expect(resolveDatabaseConfig({ url, timeoutMs: 900 }, { MINICLAW_DATABASE_TIMEOUT_MS: "1500" })!.timeoutMs).toBe(900);
    expect(() => resolveDatabaseConfig(url, { MINICLAW_DATABASE_TIMEOUT_MS: "5s" })).toThrow(/^MINICLAW_DATABASE_TIMEOUT_MS must be a positive whole number of milliseconds, not "5s"$/);
  });
});

describe.skipIf(unavailable !== undefined).concurrent("a silent partition between miniclaw and PostgreSQL", () => {
  it("ends the turn within twice the timeout, frees the lock for the next worker within that bound, and goes on once healed", async ({ expect, onTestFinished }) => {
    const r = await rigFor(onTestFinished);
    const pg = await r.open({ timeoutMs: TIMEOUT_MS });
    // The next worker reaches the server directly, not through the cut.
    const other = await openPostgres({ url: r.cluster.url, schema: "miniclaw", timeoutMs: TIMEOUT_MS }, { lockTimeoutMs: 10_000 });
    onTestFinished(() => other.close());
    expect((await r.turn(pg, KEY, "first")).stopReason).toBe("end_turn");
    let cutAt = 0;
    r.onFault = async () => {
      r.proxy.partition();
      cutAt = Date.now();
    };
    const turn = r.turn(pg, KEY, "fault now");
    await until(() => cutAt > 0, 5_000);
    const release = await other.sessions.lock(KEY);
    const freedAfter = Date.now() - cutAt;
    await release();
    const failed = await turn;
    const endedAfter = Date.now() - cutAt;
    expect(failed.stopReason).toBe("error");
    expect(failed.error).toMatch(/^could not write the session: cannot append to session postgres:miniclaw\/agent:main:cut: [^\n]*unreachable[^\n]*$/);
    expect(endedAfter).toBeLessThan(BOUND_MS);
    expect(freedAfter).toBeLessThan(BOUND_MS);
    r.proxy.heal();
    const next = await r.turn(pg, KEY, "healed");
    expect(next.stopReason, next.error).toBe("end_turn");
    const kept = transcript((await pg.sessions.load(KEY)).messages);
    expect(kept.slice(0, 4)).toEqual(["user: first", "assistant: first done", "user: fault now", "assistant: tool_use"]);
    expect(kept.slice(-2)).toEqual(["user: healed", "assistant: healed done"]);
  });

  it("makes the REPL say the database is unreachable, and answer again once it returns, without a restart", async ({ expect, onTestFinished }) => {
    const r = await rigFor(onTestFinished);
    const env = cleanEnv({ ANTHROPIC_BASE_URL: r.model.baseURL, ANTHROPIC_API_KEY: "test", MINICLAW_DATABASE_URL: r.url, MINICLAW_DATABASE_TIMEOUT_MS: String(TIMEOUT_MS) });
    const repl = startMain(["--workspace", join(r.workspace, "ws")], { env, cwd: r.workspace, terminal: true });
    onTestFinished(async () => {
      repl.signal("SIGTERM");
      await repl.done;
    });
    const screen = repl.screen;
    // The REPL's messages carry the time in a context block: the model's answer is "<context>...</context> done".
    const answered = (from: number): Promise<void> => screen.waitFor(/<\/context> done\n[\s\S]*Jarvis› /, { from, timeoutMs: 10_000 });
    await screen.waitFor(/Jarvis› /, { timeoutMs: 10_000 });
    repl.type("hello\r");
    await answered(0);
    r.proxy.partition();
    const cutAt = Date.now();
    let mark = screen.output().length;
    repl.type("are you there\r");
    await screen.waitFor(/unreachable[^\n]*\n[\s\S]*Jarvis› /, { from: mark, timeoutMs: BOUND_MS + 2_000 });
    expect(Date.now() - cutAt).toBeLessThan(BOUND_MS);
    const said = screen.output().slice(mark).split("\n").filter((line) => /unreachable/.test(line));
    expect(said).toHaveLength(1);
    r.proxy.heal();
    mark = screen.output().length;
    repl.type("back again\r");
    await answered(mark);
    expect(screen.output().slice(mark)).not.toMatch(/unreachable/);
  });
});
