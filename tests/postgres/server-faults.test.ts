// Faults of the server itself, each on a throwaway cluster of its own: a postmaster SIGKILLed mid-turn, a connection reset
// mid-turn, a database that refuses writes. A turn ends with one line; after the fault the next turn works; nothing acknowledged is lost.
import { describe, it } from "vitest";
import { join } from "node:path";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { clustersUnavailable } from "../helpers/pg-cluster.js";
import { rigFor, transcript } from "./fault-rig.js";

const unavailable = clustersUnavailable("PostgreSQL fault tests");
const KEY = "agent:main:faults";
/** What a load puts after a turn the fault ended, so the next request is valid. */
const INTERRUPTED = "assistant: (no reply: the previous turn was interrupted)";

describe.skipIf(unavailable !== undefined).concurrent("a turn on PostgreSQL when the server fails", () => {
  it("ends the turn with one line when the postmaster is SIGKILLed mid-turn; after a restart the next turn keeps everything", async ({ expect, onTestFinished }) => {
    const r = await rigFor(onTestFinished);
    const pg = await r.open();
    expect((await r.turn(pg, KEY, "first")).stopReason).toBe("end_turn");
    r.onFault = () => r.cluster.kill();
    const failed = await r.turn(pg, KEY, "fault now");
    expect(failed.stopReason).toBe("error");
    expect(failed.error).toMatch(/^could not write the session: cannot append to session postgres:miniclaw\/agent:main:faults: [^\n]+$/);
    await r.cluster.start();
    const next = await r.turn(pg, KEY, "after restart");
    expect(next.stopReason, next.error).toBe("end_turn");
    expect(transcript((await pg.sessions.load(KEY)).messages)).toEqual([
      "user: first",
      "assistant: first done",
      "user: fault now",
      "assistant: tool_use",
      "user: tool_result!",
      INTERRUPTED,
      "user: after restart",
      "assistant: after restart done",
    ]);
  });

  it("ends the turn at once when its connection is reset mid-turn; the next turn works", async ({ expect, onTestFinished }) => {
    const r = await rigFor(onTestFinished);
    const pg = await r.open();
    r.onFault = async () => r.proxy.reset();
    const started = Date.now();
    const failed = await r.turn(pg, KEY, "fault now");
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(failed.stopReason).toBe("error");
    expect(failed.error).toMatch(/^could not write the session: cannot append to session postgres:miniclaw\/agent:main:faults: [^\n]+$/);
    const next = await r.turn(pg, KEY, "after reset");
    expect(next.stopReason, next.error).toBe("end_turn");
    expect(transcript((await pg.sessions.load(KEY)).messages)).toEqual(["user: fault now", "assistant: tool_use", "user: tool_result!", INTERRUPTED, "user: after reset", "assistant: after reset done"]);
  });

  it("says in one line that the database refuses writes, from the library and the CLI, and works again once it takes them", async ({ expect, onTestFinished }) => {
    const r = await rigFor(onTestFinished);
    const pg = await r.open();
    expect((await r.turn(pg, KEY, "first")).stopReason).toBe("end_turn");
    await r.cluster.setReadOnly(true);
    await expect(r.turn(pg, KEY, "second")).rejects.toThrow(/^cannot lock session agent:main:faults: cannot execute INSERT in a read-only transaction$/);
    const env = cleanEnv({ ANTHROPIC_BASE_URL: r.model.baseURL, ANTHROPIC_API_KEY: "test", MINICLAW_WORKSPACE: join(r.workspace, "ws"), MINICLAW_DATABASE_URL: r.url });
    const cli = await runMain(["run", "--session", KEY, "second"], { env, cwd: r.workspace });
    expect(cli.code).toBe(1);
    // The session's key, then the one line of the error.
    expect(cli.stderr.replace(/^Created a new workspace.*\n/, "").replace(/^session: .*\n/, "")).toBe("cannot lock session agent:main:faults: cannot execute INSERT in a read-only transaction\n");
    await r.cluster.setReadOnly(false);
    const next = await r.turn(pg, KEY, "third");
    expect(next.stopReason, next.error).toBe("end_turn");
    expect(transcript((await pg.sessions.load(KEY)).messages)).toEqual(["user: first", "assistant: first done", "user: third", "assistant: third done"]);
  });
});
