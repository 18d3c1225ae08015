// miniclaw run as Claude Code users script it: piped stdin, --output-format json and stream-json, and a refusal that exits 1.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, cleanEnv, runCli, runMain } from "../helpers/cli.js";
import { scriptedModelPerTest } from "../helpers/turn.js";
import { tempDir } from "../helpers/temp-dir.js";

const scripted = scriptedModelPerTest();

async function setup(rules: Parameters<typeof scripted>[0]) {
  const model = await scripted(rules);
  const dir = await tempDir("miniclaw-formats-");
  return { model, dir, env: cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" }), ws: join(dir, "ws") };
}

/** The user's text of the first request. */
const userText = (model: Awaited<ReturnType<typeof scripted>>): string => JSON.stringify(model.requests[0]?.body.messages?.[0]?.content);

describe("miniclaw run", () => {
  it("joins a shell pipe to the message, takes stdin alone with no words or -, and needs one or the other", async () => {
    const { model, dir, env, ws } = await setup([{ reply: "ok" }]);
    const piped = await runCli(["-c", `printf 'alpha\\nbeta\\n' | "$0" "$1" run --workspace "$2" "summarize this"`, process.execPath, BIN, ws], { env, cwd: dir, command: "/bin/sh" });
    expect(piped.stdout).toBe("ok\n");
    expect(userText(model)).toContain("summarize this\\n\\nalpha\\nbeta");
    expect((await runMain(["run", "--workspace", ws, "-"], { env, cwd: dir, input: "just the pipe\n" })).code).toBe(0);
    expect(JSON.stringify(model.requests[1]?.body.messages?.[0]?.content)).toContain('"just the pipe"');
    const none = await runMain(["run", "--workspace", ws], { env, cwd: dir, input: "" });
    expect([none.code, none.stderr]).toEqual([1, 'miniclaw run needs a message, e.g. miniclaw run "what is in this folder?", or piped on stdin\n']);
  });

  it("prints one JSON object with --output-format json, and each event then the result with stream-json", async () => {
    const { dir, env, ws } = await setup([{ reply: "forty-two" }]);
    const json = await runMain(["run", "--workspace", ws, "--output-format", "json", "the answer?"], { env, cwd: dir });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ type: "result", result: "forty-two", stopReason: "end_turn", iterations: 1, session: expect.stringMatching(/^agent:main:run-/), usage: { inputTokens: expect.any(Number) } });
    const stream = await runMain(["run", "--workspace", ws, "--output-format", "stream-json", "the answer?"], { env, cwd: dir });
    const lines = stream.stdout.trim().split("\n").map((line) => JSON.parse(line) as { type: string });
    expect(lines[0]?.type).toBe("turn_start");
    expect(lines.map((l) => l.type)).toContain("text_delta");
    expect(lines.at(-2)?.type).toBe("turn_end");
    expect(lines.at(-1)).toMatchObject({ type: "result", result: "forty-two" });
  });

  it("exits 1 with one line when the model refuses, the stop reason in the JSON too", async () => {
    const { dir, env, ws } = await setup([{ reply: { text: "I can't help with that.", stopReason: "refusal" } }]);
    const text = await runMain(["run", "--workspace", ws, "do it"], { env, cwd: dir });
    expect([text.code, text.stderr.split("\n").at(-2)]).toEqual([1, "miniclaw: refusal: the model declined to answer"]);
    const json = await runMain(["run", "--workspace", ws, "--output-format", "json", "do it"], { env, cwd: dir });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ stopReason: "refusal" });
  });

  it("refuses an unknown format with one line", async () => {
    const run = await runMain(["run", "--output-format", "yaml", "hi"], { env: cleanEnv() });
    expect([run.code, run.stderr]).toEqual([1, "--output-format must be one of: text, json, stream-json\n"]);
  });
});
