// The knowledge tools: save_memory writes a long-term note, memory_search finds the relevant ones, load_skill gives a skill's full instructions (layer 2).
import * as z from "zod";
import { ToolError } from "../errors.js";
import type { MemorySearchResult, MemoryStore } from "../memory/store.js";
import { UnknownSkillError, type SkillLoader } from "../skills/loader.js";
import { defineTool, type AnyTool, type Tool } from "./define.js";

const saveInput = z.object({
  key: z.string().min(1).max(120).describe('A short, stable name for the note, such as "user-preferences" or "project-alpha"'),
  content: z.string().min(1).describe("The whole note in Markdown; it replaces any earlier note with this key"),
});

const searchInput = z.object({ query: z.string().min(1).describe("Words to look for: names, topics, rare terms") });

function formatResults(query: string, results: MemorySearchResult[]): string {
  if (results.length === 0) return `No memory notes matched "${query}".`;
  const heading = `${results.length} note${results.length === 1 ? "" : "s"} matched "${query}", best first (read_file opens a whole note):`;
  const day = (date: Date): string => date.toISOString().slice(0, 10);
  return [heading, ...results.map((r, i) => `${i + 1}. ${r.key} (updated ${day(r.updated)}, score ${r.score.toFixed(2)}, file ${r.path})\n   ${r.snippet}`)].join("\n");
}

/** `save_memory({ key, content })` (acts) and `memory_search({ query })` (reads) over one store; a bad key or a failed write is a ToolError. */
export function createMemoryTools(store: MemoryStore): AnyTool[] {
  const saveMemory = defineTool({
    name: "save_memory",
    description: "Save a long-term note that every agent can find later with memory_search. One note per key; saving an existing key replaces that note, so to add to a note, search or recall it first and save the combined text.",
    input: saveInput,
    access: "act",
    async run({ key, content }) {
      const saved = await store.save(key, content).catch((error: Error) => {
        throw new ToolError(error.message, { cause: error });
      });
      return `${saved.replaced ? "Replaced" : "Saved"} memory note "${saved.key}" (${saved.size} bytes).`;
    },
  });
  const memorySearch = defineTool({
    name: "memory_search",
    description: "Search the long-term memory notes shared by all agents. Returns the best few notes, ranked by relevance, each with a snippet around the match.",
    input: searchInput,
    access: "read",
    async run({ query }) {
      return formatResults(query, await store.search(query));
    },
  });
  return [saveMemory, memorySearch];
}

const skillInput = z.object({ name: z.string().min(1).describe("The skill's name, exactly as in the skills listing") });

/** `load_skill({ name })`: the skill's body inside `<skill name="...">` tags and its other files' paths. An unknown name is an error listing the skills. */
export function createLoadSkillTool(loader: SkillLoader): Tool<z.infer<typeof skillInput>> {
  return defineTool({
    name: "load_skill",
    description: "Load the full instructions of one skill from the skills listing. Call it before doing a task a skill covers, then follow what it says; it also lists the skill's other files, which read_file can open.",
    input: skillInput,
    access: "read",
    async run({ name }) {
      return loader.body(name.trim()).catch((error: Error) => {
        throw error instanceof UnknownSkillError ? error : new ToolError(`Cannot load skill "${name}": ${error.message}`, { cause: error });
      });
    },
  });
}
