// The line editor as a person sees it: keys move and delete whole graphemes (👋🏽, e + a combining accent), wide characters take two columns; a resized terminal gets no prompt mid-turn and rewraps.
import { join } from "node:path";
import { describe, it, type TestContext } from "vitest";
import { startScriptedModel, type RecordedRequest } from "../../src/testing/index.js";
import { cleanEnv, startMain } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

const LONG = "This reply is long enough that a terminal narrowed to forty columns must wrap it over several rows, word by word.";
const LEFT = "\x1b[D";
const RIGHT = "\x1b[C";
const BACKSPACE = "\x7f";
const DELETE = "\x1b[3~";

async function setup(ctx: TestContext) {
  const model = await startScriptedModel([
    { match: /run the tests/, reply: { toolUses: [{ name: "run_command", input: { command: "npm test --version" } }] } },
    { match: { toolResult: {} }, reply: LONG },
    { reply: "ok" },
  ]);
  ctx.onTestFinished(async () => {
    ctx.expect(model.rejected).toEqual([]);
    await model.close();
  });
  const dir = await tempDir("miniclaw-editing-");
  const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x", MINICLAW_WORKSPACE: join(dir, "ws") });
  const repl = startMain([], { env, cwd: dir, terminal: true });
  await repl.screen.waitFor(/Jarvis› $/);
  return { model, repl };
}

/** The text the person sent: the first text block of the request's last user message. */
const sent = (request: RecordedRequest): unknown => (request.body.messages!.at(-1)!.content as Array<{ text?: string }>)[0]!.text;

describe.concurrent("the line editor", () => {
  it("moves and deletes whole graphemes: 👋🏽 and e + U+0301 stay whole, and the cursor moves two columns over 👋🏽 and 漢", async (ctx) => {
    const { model, repl } = await setup(ctx);
    repl.type("👋🏽e\u0301漢");
    await repl.screen.waitFor(/漢$/);
    // Each key is its own chunk, as a person presses them: the next is typed once the editor has drawn the last.
    const press = async (key: string): Promise<string> => {
      const mark = repl.screen.raw().length;
      repl.type(key);
      while (repl.screen.raw().length === mark) await new Promise<void>((resolve) => setImmediate(resolve));
      return repl.screen.raw().slice(mark);
    };
    ctx.expect(await press(LEFT)).toBe("\x1b[2D"); // over 漢
    await press(BACKSPACE); // é, both of its code points
    ctx.expect(await press(LEFT)).toBe("\x1b[2D"); // over 👋🏽: two columns, as the terminal draws it (Node alone counts four)
    await press("a");
    ctx.expect(await press(RIGHT)).toBe("\x1b[2C");
    await press("b");
    repl.type("\r");
    await repl.screen.waitFor(/ok\n[\s\S]*Jarvis› $/);
    ctx.expect(model.requests.map(sent)).toEqual(["a👋🏽b漢"]);
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
  });

  it("Delete before e + U+0301 removes the whole letter", async (ctx) => {
    const { model, repl } = await setup(ctx);
    repl.type("xe\u0301y");
    await repl.screen.waitFor(/y$/);
    for (const key of [LEFT, LEFT, DELETE]) {
      const mark = repl.screen.raw().length;
      repl.type(key);
      while (repl.screen.raw().length === mark) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    repl.type("\r");
    await repl.screen.waitFor(/ok\n[\s\S]*Jarvis› $/);
    ctx.expect(model.requests.map(sent)).toEqual(["xy"]);
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
  });
});

describe.concurrent("resizing the terminal", () => {
  it("draws no prompt during a turn, and the reply after it wraps at the new width", async (ctx) => {
    const { repl } = await setup(ctx);
    let mark = repl.screen.output().length;
    repl.type("please run the tests\r");
    await repl.screen.waitFor(/Allow "npm test --version"\?/, { from: mark });
    repl.resize(40);
    repl.type("n");
    await repl.screen.waitFor(/word by word\.\nJarvis› $/, { from: mark });
    const turn = repl.screen.output().slice(mark, -"Jarvis› ".length);
    ctx.expect(turn).not.toContain("Jarvis›");
    const reply = turn.slice(turn.indexOf("This reply")).trimEnd().split("\n");
    ctx.expect(reply.length).toBeGreaterThan(2);
    for (const row of reply) ctx.expect(row.length).toBeLessThanOrEqual(40);
    ctx.expect(reply.join(" ")).toBe(LONG);

    // At the prompt, the line being typed is drawn again for the new width.
    repl.type("a draft");
    await repl.screen.waitFor(/a draft$/);
    mark = repl.screen.raw().length;
    repl.resize(100);
    while (!repl.screen.raw().slice(mark).includes("Jarvis› a draft")) await new Promise<void>((resolve) => setImmediate(resolve));
    repl.type("\x15/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
  });
});
