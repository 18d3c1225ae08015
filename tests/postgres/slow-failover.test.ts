// A slow server (a proxy adding 50 ms to every round trip) and a failover to a base backup of the server, each on a
// throwaway cluster of its own: turns finish, lock waits say who holds the session and how long they waited, sessions continue.
import { join } from "node:path";
import pg from "pg";
import { describe, it } from "vitest";
import { openPostgres } from "../../src/postgres/index.js";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { clustersUnavailable } from "../helpers/pg-cluster.js";
import { rigFor, transcript } from "./fault-rig.js";

const unavailable = clustersUnavailable("PostgreSQL slow-server and failover tests");
const KEY = "agent:main:slow";
const LOCK_WAIT_MS = 600;

describe.skipIf(unavailable !== undefined).concurrent("PostgreSQL slow or moved", () => {
  it("finishes turns with 50 ms added to every round trip, and says who holds a busy session after the wait it was given", async ({ expect, onTestFinished }) => {
    const r = await rigFor(onTestFinished);
    r.proxy.setLatency(25);
    const store = await r.open();
    const other = await r.open({}, LOCK_WAIT_MS);
    for (const text of ["one", "two", "three"]) expect((await r.turn(store, KEY, text)).stopReason).toBe("end_turn");

    // Another process holds the session: a connection of its own, named as miniclaw names its connections.
    const holder = new pg.Client({ connectionString: r.url, application_name: "miniclaw pid 4242 on elsewhere" });
    await holder.connect();
    onTestFinished(() => holder.end());
    const key = other.sessions.database.lockKey(`session:${KEY}`);
    await holder.query("SELECT pg_advisory_lock($1::bigint)", [key]);
    let started = Date.now();
    const busy = await other.sessions.lock(KEY).then(() => "locked", (error: Error) => error.message);
    const waited = Date.now() - started;
    expect(busy).toMatch(/^session busy: agent:main:slow is locked by miniclaw pid 4242 on elsewhere \(server process \d+\) \(waited 600 ms; postgres:miniclaw\/agent:main:slow\)$/);
    expect(waited).toBeGreaterThanOrEqual(LOCK_WAIT_MS);
    expect(waited).toBeLessThan(LOCK_WAIT_MS + 1_500);

    started = Date.now();
    setTimeout(() => void holder.query("SELECT pg_advisory_unlock($1::bigint)", [key]), 200);
    const next = await other.sessions.lock(KEY);
    expect(Date.now() - started).toBeLessThan(LOCK_WAIT_MS + 500);
    await next();
    expect((await r.turn(other, KEY, "four")).stopReason).toBe("end_turn");
    const kept = transcript((await store.sessions.load(KEY)).messages);
    expect(kept.filter((line) => line.startsWith("user"))).toEqual(["user: one", "user: two", "user: three", "user: four"]);
    expect(kept).toHaveLength(8);
  });

  it("continues sessions on a base backup of the server once the URL names it, through the library and the CLI", async ({ expect, onTestFinished }) => {
    const r = await rigFor(onTestFinished);
    const store = await r.open();
    for (const key of ["agent:main:a", "agent:main:b"]) for (const text of ["one", "two"]) expect((await r.turn(store, key, text)).stopReason).toBe("end_turn");
    const second = await r.cluster.baseBackup();
    onTestFinished(() => second.destroy());
    await r.cluster.stop();
    // The library's URL names the proxy: moved to the new server, as a switched address would be.
    r.proxy.retarget(second.port);
    const moved = await r.turn(store, "agent:main:a", "three");
    expect(moved.stopReason, moved.error).toBe("end_turn");
    expect(transcript((await store.sessions.load("agent:main:a")).messages)).toEqual(["user: one", "assistant: one done", "user: two", "assistant: two done", "user: three", "assistant: three done"]);
    // A new process is given the new server's URL.
    const env = cleanEnv({ ANTHROPIC_BASE_URL: r.model.baseURL, ANTHROPIC_API_KEY: "test", MINICLAW_WORKSPACE: join(r.workspace, "ws"), MINICLAW_DATABASE_URL: second.url });
    const cli = await runMain(["run", "--session", "agent:main:b", "three"], { env, cwd: r.workspace });
    expect(cli.code, cli.stderr).toBe(0);
    const after = await openPostgres({ url: second.url, schema: "miniclaw" });
    onTestFinished(() => after.close());
    expect(transcript((await after.sessions.load("agent:main:b")).messages).filter((line) => line.startsWith("user"))).toEqual(["user: one", "user: two", expect.stringMatching(/^user: three,/)]);
  });
});
