// The system prompt: its parts in a fixed order, capped files, and the same bytes every time.
import { execFileSync } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildSystemPrompt, capText, MAX_PROMPT_FILE_CHARS, readUserProfile } from "../../src/runtime/system-prompt.js";
import { tempDir } from "../helpers/temp-dir.js";

const agent = { prompt: "You are Jarvis.\n" };
const ALL_TOOLS = ["run_command", "read_file", "write_file", "edit_file", "save_memory", "memory_search", "load_skill"];

describe("buildSystemPrompt", () => {
  it("puts the SOUL body, the user profile, the skills listing and the tool notes in that order", () => {
    const prompt = buildSystemPrompt({
      agent,
      userProfile: "Name: Ana. Lives in Lisbon.",
      skillsListing: "- daily-briefing: Write a briefing\n- repo-summary: Summarise a repository",
      toolNames: ALL_TOOLS,
    });
    const order = ["You are Jarvis.", "# About the user", "Name: Ana.", "# Skills", "load_skill", "- daily-briefing", "# Tools and memory", "memory_search"];
    const positions = order.map((part) => prompt.indexOf(part));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(prompt.startsWith("You are Jarvis.")).toBe(true);
  });

  it("is byte-identical for equal inputs, whatever the order the tools are listed in", () => {
    const input = { agent, userProfile: "Ana", skillsListing: "- a: b", toolNames: ALL_TOOLS };
    const first = buildSystemPrompt(input);
    expect(buildSystemPrompt({ ...input })).toBe(first);
    expect(buildSystemPrompt({ ...input, toolNames: [...ALL_TOOLS].reverse() })).toBe(first);
    expect(first).not.toMatch(/\d{4}-\d{2}-\d{2}/);
  });

  it("writes notes only for the tools offered, and lists skills only when load_skill is offered", () => {
    const bare = buildSystemPrompt({ agent, skillsListing: "- a: b", toolNames: [] });
    expect(bare).toBe("You are Jarvis.");
    const searchOnly = buildSystemPrompt({ agent, skillsListing: "- a: b", toolNames: ["memory_search"] });
    expect(searchOnly).toContain("memory_search");
    expect(searchOnly).not.toContain("save_memory");
    expect(searchOnly).not.toContain("# Skills");
    expect(searchOnly).not.toContain("run_command");
  });

  it("leaves out a blank user profile and an empty listing", () => {
    expect(buildSystemPrompt({ agent, userProfile: "  \n", skillsListing: "", toolNames: ["load_skill"] })).toBe("You are Jarvis.");
  });

  it("caps a long file, keeping its head and tail and marking the cut", () => {
    const profile = `HEAD${"x".repeat(MAX_PROMPT_FILE_CHARS * 2)}TAIL`;
    const prompt = buildSystemPrompt({ agent, userProfile: profile, toolNames: [] });
    expect(prompt).toContain("HEAD");
    expect(prompt).toContain("TAIL");
    expect(prompt).toMatch(/\[… \d+ characters of USER\.md cut here …\]/);
    expect(prompt.length).toBeLessThan(MAX_PROMPT_FILE_CHARS + 200);
  });
});

describe("capText", () => {
  it("returns short text unchanged and cuts long text to its budget plus the marker", () => {
    expect(capText("short", 10, "f")).toBe("short");
    const cut = capText("a".repeat(70) + "b".repeat(30) + "c".repeat(100), 100, "f");
    expect(cut.startsWith("a".repeat(70))).toBe(true);
    expect(cut.endsWith("c".repeat(30))).toBe(true);
    expect(cut).toContain("[… 100 characters of f cut here …]");
  });
});

describe("readUserProfile", () => {
  it("reads USER.md from the workspace, and is undefined when missing or blank", async () => {
    const workspace = await tempDir("miniclaw-user-");
    try {
      expect(readUserProfile(workspace)).toBeUndefined();
      await writeFile(join(workspace, "USER.md"), "\n \n");
      expect(readUserProfile(workspace)).toBeUndefined();
      await writeFile(join(workspace, "USER.md"), "# Ana\nPrefers short answers.\n");
      expect(readUserProfile(workspace)).toBe("# Ana\nPrefers short answers.\n");
      // A FIFO in its place (no writer will ever come) is no profile, not a turn that never starts.
      await rm(join(workspace, "USER.md"));
      execFileSync("mkfifo", [join(workspace, "USER.md")]);
      expect(readUserProfile(workspace)).toBeUndefined();
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });
});
