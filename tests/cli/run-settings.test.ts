import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it, type TestContext } from "vitest";
import { startScriptedModel, type Rule } from "../../src/testing/index.js";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

/** A scripted model (checked and closed after the test) and a fresh folder holding a workspace path and `schema.json`. */
async function setup(ctx: TestContext, rules: Rule[], schema: unknown = SCORE_SCHEMA) {
  const model = await startScriptedModel(rules);
  ctx.onTestFinished(async () => {
    ctx.expect(model.rejected).toEqual([]);
    await model.close();
  });
  const dir = await tempDir("miniclaw-run-settings-");
  await writeFile(join(dir, "schema.json"), typeof schema === "string" ? schema : JSON.stringify(schema));
  const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" });
  const run = (...args: string[]) => runMain(["run", "--workspace", join(dir, "ws"), ...args], { env, cwd: dir });
  return { model, dir, run };
}

const SCORE_SCHEMA = {
  type: "object",
  properties: { score: { type: "integer", minimum: 1, maximum: 10 }, why: { type: "string" } },
  required: ["score", "why"],
};

describe.concurrent("miniclaw run: thinking, effort and web tools", () => {
  it("--thinking and --effort override the agent's SOUL.md in every request", async (ctx) => {
    const t = await setup(ctx, [{ reply: { thinking: "Short answer.", text: "Hi." } }]);
    const run = await t.run("--thinking", "4096", "--effort", "low", "/research hello");
    ctx.expect(run.code).toBe(0);
    ctx.expect(run.stdout).toBe("Hi.\n");
    const body = t.model.requests[0]!.body;
    ctx.expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
    ctx.expect(body.output_config).toEqual({ effort: "low" });
  });

  it("without the flags, the agent's own settings go out", async (ctx) => {
    const t = await setup(ctx, [{ reply: "Hi." }]);
    await t.run("/research hello");
    ctx.expect(t.model.requests[0]!.body.thinking).toEqual({ type: "enabled", budget_tokens: 8000 });
    ctx.expect(t.model.requests[0]!.body.output_config).toEqual({ effort: "high" });
  });

  it("prints a search and a fetch as tool lines on stderr, the thinking not at all, the reply alone on stdout", async (ctx) => {
    const t = await setup(ctx, [
      {
        reply: {
          thinking: "I should search the release notes.",
          serverTools: [
            { search: "node 20 release date", results: [{ url: "https://nodejs.org/en/blog/release/v20.0.0", title: "Node v20.0.0" }, { url: "https://example.com/node20", title: "Node 20 is out" }] },
            { fetch: "https://nodejs.org/en/blog/release/v20.0.0", title: "Node v20.0.0 (Current)", text: "Released 2023-04-18." },
          ],
          text: "Node 20 was released on 18 April 2023.",
        },
      },
    ]);
    const run = await t.run("/research when was node 20 released?");
    ctx.expect(run.code).toBe(0);
    ctx.expect(run.stdout).toBe("Node 20 was released on 18 April 2023.\n");
    ctx.expect(run.stderr.split("\n").filter((line) => /^(→|  [✓✗])/.test(line))).toEqual([
      '→ web_search: "node 20 release date"',
      "  ✓ 2 results",
      "→ web_fetch: https://nodejs.org/en/blog/release/v20.0.0",
      "  ✓ fetched Node v20.0.0 (Current)",
    ]);
    ctx.expect(run.stderr).not.toMatch(/release notes|thinking/);
  });
});

describe.concurrent("miniclaw run --output-schema", () => {
  it("prints the checked object alone, on one line, and exits 0; the schema goes out as the output format", async (ctx) => {
    const t = await setup(ctx, [{ reply: '{"score": 8, "why": "clear\\nand short"}' }]);
    const run = await t.run("--output-schema", "schema.json", "rate this haiku");
    ctx.expect(run.code).toBe(0);
    ctx.expect(run.stdout).toBe('{"score":8,"why":"clear\\nand short"}\n');
    ctx.expect(JSON.parse(run.stdout)).toEqual({ score: 8, why: "clear\nand short" });
    const format = (t.model.requests[0]!.body.output_config as { format?: { type: string; schema: { properties: object } } }).format;
    ctx.expect(format?.type).toBe("json_schema");
    ctx.expect(Object.keys(format!.schema.properties)).toEqual(["score", "why"]);
  });

  it("may use tools before it answers; tool lines stay on stderr", async (ctx) => {
    const t = await setup(ctx, [
      { match: "rate my notes", reply: { toolUses: [{ name: "memory_search", input: { query: "haiku" } }] } },
      { match: { toolResult: { name: "memory_search" } }, reply: '{"score": 3, "why": "no notes"}' },
    ]);
    const run = await t.run("--output-schema", "schema.json", "rate my notes");
    ctx.expect(run.code).toBe(0);
    ctx.expect(run.stdout).toBe('{"score":3,"why":"no notes"}\n');
    ctx.expect(run.stderr).toMatch(/→ memory_search: haiku/);
  });

  it("escapes a control or invisible character as JSON does, so the line is safe on a terminal and reads back the same", async (ctx) => {
    const t = await setup(ctx, [{ reply: JSON.stringify({ score: 5, why: "flip \u202e here \u009b" }) }]);
    const run = await t.run("--output-schema", "schema.json", "rate");
    ctx.expect(run.stdout).toBe('{"score":5,"why":"flip \\u202e here \\u009b"}\n');
    ctx.expect(JSON.parse(run.stdout)).toEqual({ score: 5, why: "flip \u202e here \u009b" });
  });

  it("exits 1 with the validation error on the last line of stderr when every answer is invalid, and prints nothing on stdout", async (ctx) => {
    const t = await setup(ctx, [{ reply: '{"score": 11}' }]);
    const run = await t.run("--output-schema", "schema.json", "rate this");
    ctx.expect(run.code).toBe(1);
    ctx.expect(run.stdout).toBe("");
    ctx.expect(run.stderr.trimEnd().split("\n").at(-1)).toMatch(/^miniclaw: output_invalid: .*score/);
    ctx.expect(t.model.requests).toHaveLength(3);
  });

  it.for([
    ["is missing", undefined, /^missing\.json: no such file$/],
    ["is not JSON", "{ type: object", /^schema\.json: not valid JSON: /],
    ["describes no object", { type: "array", items: { type: "string" } }, /^schema\.json: must be the JSON Schema of an object, .*found "type": "array"$/],
    ["is not an object at all", "[1, 2]", /^schema\.json: must be the JSON Schema of an object, .*found \[1,2\]$/],
  ] as Array<[string, unknown, RegExp]>)("exits 1 naming the file when it %s, before any request", async ([what, schema, message], ctx) => {
    const t = await setup(ctx, [{ reply: "never" }], schema ?? SCORE_SCHEMA);
    const run = await t.run("--output-schema", what === "is missing" ? "missing.json" : "schema.json", "rate");
    ctx.expect(run.code).toBe(1);
    ctx.expect(run.stderr.trim()).toMatch(message);
    ctx.expect(t.model.requests).toEqual([]);
  });
});

describe.concurrent("miniclaw run: the cap on model requests per turn", () => {
  // A new path each time: the same call over and over would be stopped by the repeated-call brake first.
  const endless: Rule[] = [{ reply: (req) => ({ toolUses: [{ name: "read_file", input: { path: `nothing-${req.body.messages!.length}.txt` } }] }) }];

  it("--max-iterations raises or lowers the cap of 20, and the turn stops there with max_iterations", async (ctx) => {
    const t = await setup(ctx, endless);
    const low = await t.run("--max-iterations", "3", "go");
    ctx.expect(low.code).toBe(1);
    ctx.expect(low.stderr).toMatch(/stopped after 3 model requests/);
    ctx.expect(t.model.requests).toHaveLength(3);
    await t.run("--max-iterations", "25", "go");
    ctx.expect(t.model.requests).toHaveLength(3 + 25);
  });

  it("takes an agent's max_iterations from SOUL.md, under the flag", async (ctx) => {
    const t = await setup(ctx, endless);
    await t.run("hi");
    const soul = join(t.dir, "ws", "agents", "main", "SOUL.md");
    const { readFile } = await import("node:fs/promises");
    await writeFile(soul, (await readFile(soul, "utf8")).replace(/^name:/m, "max_iterations: 2\nname:"));
    const before = t.model.requests.length;
    await t.run("go");
    ctx.expect(t.model.requests.length - before).toBe(2);
    await t.run("--max-iterations", "4", "go");
    ctx.expect(t.model.requests.length - before).toBe(2 + 4);
  });

  it("refuses a cap that is not a whole number from 1 to 1000, in the flag and in SOUL.md", async (ctx) => {
    const t = await setup(ctx, endless);
    const flag = await t.run("--max-iterations", "0", "go");
    ctx.expect(flag).toMatchObject({ code: 1, stderr: '--max-iterations must be a whole number of model requests per turn from 1 to 1000, got "0"\n' });
    await t.run("hi");
    const soul = join(t.dir, "ws", "agents", "main", "SOUL.md");
    const { readFile } = await import("node:fs/promises");
    await writeFile(soul, (await readFile(soul, "utf8")).replace(/^name:/m, "max_iterations: many\nname:"));
    const run = await t.run("go");
    ctx.expect(run.code).toBe(1);
    ctx.expect(run.stderr).toMatch(/SOUL\.md: max_iterations: must be a whole number of model requests per turn from 1 to 1000, got "many"/);
  });
});
