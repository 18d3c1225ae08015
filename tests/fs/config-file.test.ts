import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { checkConfig, closest, parseJsonConfig, readConfigText } from "../../src/fs/config-file.js";
import { tempDir } from "../helpers/temp-dir.js";

const schema = z.strictObject({ name: z.string(), jobs: z.array(z.strictObject({ schedule: z.string(), prompt: z.string().optional() })) });

describe("configuration files", () => {
  it("says in one line which file, which field and what was wrong", () => {
    expect(() => checkConfig(schema, { name: 3, jobs: [] }, "cron.json")).toThrow(/^cron\.json: name: Invalid input: expected string, received number$/);
    expect(() => checkConfig(schema, { name: "a", jobs: [{ schedule: "* * * * *", promt: "hi" }] }, "cron.json")).toThrow(
      'cron.json: jobs.0: unknown field "promt" (did you mean "prompt"?) (known: schedule, prompt)',
    );
  });

  it("suggests our name for a name another tool uses", () => {
    expect(() => checkConfig(schema, { name: "a", jobs: [], maxTurns: 3 }, "options", { maxTurns: "maxIterations" })).toThrow(
      'options: unknown field "maxTurns" (did you mean "maxIterations"?) (known: name, jobs)',
    );
    expect(closest("maxIteration", ["maxIterations", "model"])).toBe("maxIterations");
    expect(closest("banana", ["maxIterations", "model"])).toBeUndefined();
  });

  it("reads a missing optional file as absent and a required one as a clear error", async () => {
    const dir = await tempDir("miniclaw-config-");
    expect(await readConfigText(join(dir, "mcp.json"), { optional: true })).toBeUndefined();
    await expect(readConfigText(join(dir, "cron.json"), { hint: 'create it with {"jobs": []}' })).rejects.toThrow(`${join(dir, "cron.json")} not found: create it with {"jobs": []}`);
    await writeFile(join(dir, "bad.json"), "{ nope");
    expect(() => parseJsonConfig("{ nope", "bad.json")).toThrow(/^bad\.json: not valid JSON: /);
  });
});
