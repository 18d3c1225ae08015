// The CLI on PostgreSQL: MINICLAW_DATABASE_URL moves run, sessions, export and import to the database; bad settings get one line.
import { readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedModel, type ScriptedModel } from "../../src/testing/index.js";
import { cleanEnv, runCli, runMain } from "../helpers/cli.js";
import { databaseUnavailable, newTestSchema, type TestSchema } from "../helpers/pg.js";
import { tempDir } from "../helpers/temp-dir.js";

const unavailable = await databaseUnavailable();

describe.skipIf(unavailable !== undefined)("the CLI with MINICLAW_DATABASE_URL", () => {
  let schema: TestSchema;
  let model: ScriptedModel;
  let cwd: string;
  let env: Record<string, string>;
  let files: Record<string, string>;
  beforeEach(async () => {
    schema = newTestSchema();
    model = await startScriptedModel([{ match: /.*/, reply: (req) => `got ${JSON.stringify(req.body.messages!.length)} messages` }]);
    cwd = await tempDir("miniclaw-cli-pg-");
    files = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "test", MINICLAW_WORKSPACE: join(cwd, "workspace") });
    env = { ...files, MINICLAW_DATABASE_URL: schema.url, MINICLAW_DATABASE_SCHEMA: schema.schema };
  });
  afterEach(async () => {
    await model.close();
    await schema.drop();
    await rm(cwd, { recursive: true, force: true });
  });

  it("migrates, runs turns into the database, and lists and shows them as the files would", async () => {
    const created = `created the tables of schema ${schema.schema} (version 2); created pg-boss's in ${schema.schema}_boss\n`;
    expect(await runMain(["db", "migrate"], { env, cwd })).toMatchObject({ code: 0, stdout: created });
    const found = await runCli(["db", "migrate"], { env, cwd });
    expect(found).toMatchObject({ code: 0, stdout: `found the tables of schema ${schema.schema} at version 2: up to date; found pg-boss's in ${schema.schema}_boss\n` });
    const first = await runMain(["run", "hello"], { env, cwd });
    expect(first.code, first.stderr).toBe(0);
    const key = /session: (\S+)/.exec(first.stderr)![1]!;
    expect((await runMain(["run", "--continue", "again"], { env, cwd })).stdout).toBe("got 3 messages\n");
    expect((await readdir(join(cwd, "workspace", "sessions"))).filter((name) => name.endsWith(".jsonl"))).toEqual([]);

    const listed = await runMain(["sessions"], { env, cwd });
    expect(listed.stdout).toMatch(new RegExp(`^KEY .*\\n${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} +main +4 +~\\d+ +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\n$`));
    const exported = await runMain(["sessions", "export", key], { env, cwd });
    expect(exported.stdout.trim().split("\n").map((line) => JSON.parse(line).type)).toEqual(["session", "message", "message", "message", "message"]);

    // The same records in files show the same.
    await writeFile(join(cwd, "s.jsonl"), exported.stdout);
    expect(await runMain(["sessions", "import", "s.jsonl"], { env: files, cwd })).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Imported 5 records into session /) });
    for (const args of [["sessions", "show", key], ["sessions", "show", key, "--all"], ["sessions"]]) {
      expect((await runMain(args, { env, cwd })).stdout).toBe((await runMain(args, { env: files, cwd })).stdout);
    }
    expect((await runMain(["sessions", "export", key], { env: files, cwd })).stdout).toBe(exported.stdout);
    const again = await runMain(["sessions", "import", "s.jsonl"], { env, cwd });
    expect(again).toMatchObject({ code: 1, stderr: expect.stringMatching(/^session \S+ already exists \(postgres:t_\w+\/\S+\); import under another key with --session NEW_KEY\n$/) });
  }, 30_000);

  it("steers a session through the database's inbox", async () => {
    const first = await runMain(["run", "hello"], { env, cwd });
    const key = /session: (\S+)/.exec(first.stderr)![1]!;
    expect((await runMain(["steer", key, "mind the tests"], { env, cwd })).code).toBe(0);
    await runMain(["run", "--session", key, "go on"], { env, cwd });
    const shown = (await runMain(["sessions", "show", key], { env, cwd })).stdout;
    expect(shown).toMatch(/mind the tests/);
  }, 30_000);
});

describe("database settings the CLI refuses with one line", () => {
  const cases: [string, Record<string, string>, string[], RegExp][] = [
    ["a URL of another database", { MINICLAW_DATABASE_URL: "mysql://root@localhost/db" }, ["sessions"], /^MINICLAW_DATABASE_URL must be a PostgreSQL URL \(postgres:\/\/user@host:5432\/db\), not "mysql:\/\/root@localhost\/db"\n$/],
    ["a schema that is not an identifier", { MINICLAW_DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test", MINICLAW_DATABASE_SCHEMA: "x; DROP" }, ["sessions"], /^the database schema must be lowercase letters, digits and _ .*not "x; DROP"\n$/],
    ["a server that does not answer", {}, ["sessions", "--database-url", "postgres://postgres:secret@127.0.0.1:1/test"], /^cannot use the database postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/test: connection refused \(is PostgreSQL running there\?\)\n$/],
    ["db migrate without a database", {}, ["db", "migrate"], /^no database: set MINICLAW_DATABASE_URL or pass --database-url/],
  ];
  it.each(cases)("%s", async (_name, extra, args, expected) => {
    const cwd = await tempDir("miniclaw-cli-pg-");
    try {
      const run = await runMain(args, { env: cleanEnv({ MINICLAW_WORKSPACE: join(cwd, "workspace"), ...extra }), cwd });
      expect(run.code).toBe(1);
      expect(run.stderr.replace(/^Created a new workspace.*\n/, "")).toMatch(expected);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
