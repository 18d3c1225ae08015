// load_skill: the tool on its own, and end to end through the loop and the scripted model.
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolError } from "../../src/errors.js";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { buildSystemPrompt } from "../../src/runtime/system-prompt.js";
import { SkillLoader } from "../../src/skills/loader.js";
import { startScriptedModel, type ScriptedModel } from "../../src/testing/index.js";
import { createLoadSkillTool } from "../../src/tools/memory.js";
import type { ToolContext } from "../../src/tools/define.js";
import { clientFor } from "../helpers/scripted.js";
import { tempDir } from "../helpers/temp-dir.js";

let temp: string;
let model: ScriptedModel | undefined;
beforeEach(async () => {
  temp = await tempDir("miniclaw-load-skill-");
});
afterEach(async () => {
  await model?.close();
  model = undefined;
  await rm(temp, { recursive: true, force: true });
});

async function loaderWith(...names: string[]): Promise<SkillLoader> {
  for (const name of names) {
    await mkdir(join(temp, "skills", name), { recursive: true });
    await writeFile(join(temp, "skills", name, "SKILL.md"), `---\nname: ${name}\ndescription: The ${name} skill.\n---\nSteps of ${name}: check twice.\n`);
  }
  const loader = new SkillLoader({ dirs: [join(temp, "skills")] });
  await loader.load();
  return loader;
}

describe("load_skill", () => {
  it("is a read-only tool taking a name", async () => {
    const tool = createLoadSkillTool(await loaderWith("alpha"));
    expect(tool.name).toBe("load_skill");
    expect(tool.access).toBe("read");
    expect(tool.inputSchema).toMatchObject({ type: "object", required: ["name"] });
  });

  it("returns the skill body inside skill tags", async () => {
    const tool = createLoadSkillTool(await loaderWith("alpha"));
    const output = await tool.run({ name: "alpha" }, {} as ToolContext);
    expect(output).toBe('<skill name="alpha">\nSteps of alpha: check twice.\n</skill>');
  });

  it("throws a ToolError listing the available skills for an unknown name", async () => {
    const tool = createLoadSkillTool(await loaderWith("beta", "alpha"));
    const error = await Promise.resolve()
      .then(() => tool.run({ name: "gamma" }, {} as ToolContext))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toBe('Unknown skill "gamma". Available skills: alpha, beta.');
  });

  it("carries the body to the model in the next request, and an unknown name as an error result", async () => {
    const loader = await loaderWith("alpha");
    model = await startScriptedModel([
      { match: "use the skill", times: 1, reply: { toolUses: [{ name: "load_skill", input: { name: "alpha" } }] } },
      { match: { toolResult: { name: "load_skill", content: "Steps of alpha" } }, times: 1, reply: { toolUses: [{ name: "load_skill", input: { name: "nope" } }] } },
      { match: { toolResult: { name: "load_skill" } }, reply: "Done." },
    ]);
    const result = await runAgentTurn("agent:main:main", "please use the skill", { id: "main", name: "Test", prompt: "You are a test agent.", tools: ["load_skill"] }, {
      runtime: { workspace: temp, client: clientFor(model), skills: loader, shell: false },
    });
    expect(result).toMatchObject({ text: "Done.", stopReason: "end_turn", iterations: 3 });
    expect(model.rejected).toEqual([]);
    const [first, second, third] = model.requests.map((r) => r.body);
    expect(JSON.stringify(first?.system)).toContain("- alpha: The alpha skill.");
    const secondResult = JSON.stringify(second?.messages?.at(-1));
    expect(secondResult).toContain('<skill name=\\"alpha\\">');
    expect(secondResult).not.toContain("is_error\":true");
    const thirdResult = JSON.stringify(third?.messages?.at(-1));
    expect(thirdResult).toContain("Unknown skill \\\"nope\\\". Available skills: alpha.");
    expect(thirdResult).toContain("\"is_error\":true");
  });
});
