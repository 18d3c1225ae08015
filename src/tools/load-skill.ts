// The load_skill tool: a skill's full instructions (layer 2) on the model's request.
import * as z from "zod";
import { ToolError } from "../errors.js";
import { UnknownSkillError, type SkillLoader } from "../skills/loader.js";
import { defineTool, type Tool } from "./define.js";

const input = z.object({ name: z.string().min(1).describe("The skill's name, exactly as in the skills listing") });

/** `load_skill({ name })`: the skill's body inside `<skill name="...">` tags and its other files' paths. An unknown name is an error listing the skills. */
export function createLoadSkillTool(loader: SkillLoader): Tool<z.infer<typeof input>> {
  return defineTool({
    name: "load_skill",
    description: "Load the full instructions of one skill from the skills listing. Call it before doing a task a skill covers, then follow what it says; it also lists the skill's other files, which read_file can open.",
    input,
    access: "read",
    async run({ name }) {
      return loader.body(name.trim()).catch((error: Error) => {
        throw error instanceof UnknownSkillError ? error : new ToolError(`Cannot load skill "${name}": ${error.message}`, { cause: error });
      });
    },
  });
}
