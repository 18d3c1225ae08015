import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { matchesToolGlob, mcpToolName, mcpToolNames } from "../../src/mcp/names.js";

const API_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const sha8 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex").slice(0, 8);

describe("mcpToolName", () => {
  it("joins server and tool as mcp__<server>__<tool>, keeping letters, digits, _ and -", () => {
    expect(mcpToolName("github", "create_issue")).toBe("mcp__github__create_issue");
    expect(mcpToolName("my-server", "Get-Item_2")).toBe("mcp__my-server__Get-Item_2");
  });

  it("turns dots, spaces, slashes and other characters into _", () => {
    expect(mcpToolName("fs", "files.read")).toBe("mcp__fs__files_read");
    expect(mcpToolName("fs", "read file")).toBe("mcp__fs__read_file");
    expect(mcpToolName("fs", "dir/list:all")).toBe("mcp__fs__dir_list_all");
  });

  it("turns each non-ASCII character into one _, astral characters included", () => {
    expect(mcpToolName("notes", "résumé")).toBe("mcp__notes__r_sum_");
    expect(mcpToolName("notes", "日本語")).toBe("mcp__notes_____");
    expect(mcpToolName("notes", "go🚀")).toBe("mcp__notes__go_");
  });

  it("keeps a name of exactly 64 characters whole", () => {
    const tool = "t".repeat(64 - "mcp__s__".length);
    expect(mcpToolName("s", tool)).toBe(`mcp__s__${tool}`);
    expect(mcpToolName("s", tool)).toHaveLength(64);
  });

  it("cuts a longer name to 64, ending with _ and 8 hex chars of the sha256 of the uncut name", () => {
    const tool = "a_really_long_tool_name_that_goes_on_and_on_past_the_api_limit_of_sixty_four";
    const name = mcpToolName("server", tool);
    expect(name).toBe(`${`mcp__server__${tool}`.slice(0, 55)}_${sha8(`mcp__server__${tool}`)}`);
    expect(name).toHaveLength(64);
    expect(name).toMatch(API_TOOL_NAME);
    expect(name.startsWith("mcp__server__")).toBe(true);
  });

  it("gives the same name every time and different names to two long tools that share a prefix", () => {
    const prefix = "x".repeat(70);
    const first = mcpToolName("s", `${prefix}_create`);
    const second = mcpToolName("s", `${prefix}_delete`);
    expect(mcpToolName("s", `${prefix}_create`)).toBe(first);
    expect(first.slice(0, 55)).toBe(second.slice(0, 55));
    expect(first).not.toBe(second);
  });

  it("hashes the name before cleaning, so long names that differ only in cleaned characters stay apart", () => {
    const prefix = "y".repeat(70);
    expect(mcpToolName("s", `${prefix}.a`)).not.toBe(mcpToolName("s", `${prefix} a`));
  });

  it("always gives a name the API accepts", () => {
    for (const [server, tool] of [["s", ""], ["s", "é".repeat(100)], ["a-b", "🚀".repeat(40)], ["x".repeat(80), "y"]] as const) {
      expect(mcpToolName(server, tool)).toMatch(API_TOOL_NAME);
    }
  });
});

describe("mcpToolNames", () => {
  it("names every tool, in the order given, when none clash", () => {
    const { names, clashes } = mcpToolNames("fs", ["write", "read.file", "list"]);
    expect([...names]).toEqual([
      ["write", "mcp__fs__write"],
      ["read.file", "mcp__fs__read_file"],
      ["list", "mcp__fs__list"],
    ]);
    expect(clashes).toEqual([]);
  });

  it("reports two tools that map to one name, naming both, and names neither", () => {
    const { names, clashes } = mcpToolNames("fs", ["read.file", "list", "read file", "read_file"]);
    expect(clashes).toEqual([
      ["read.file", "read file", "mcp__fs__read_file"],
      ["read.file", "read_file", "mcp__fs__read_file"],
    ]);
    expect([...names]).toEqual([["list", "mcp__fs__list"]]);
  });

  it("reports a tool listed twice as a clash with itself", () => {
    expect(mcpToolNames("fs", ["list", "list"]).clashes).toEqual([["list", "list", "mcp__fs__list"]]);
  });
});

describe("matchesToolGlob", () => {
  it("matches the server's own name or the mcp__ name, whole, with * and ?", () => {
    const match = (globs: string[] | undefined): boolean => matchesToolGlob("get.issue", "mcp__github__get_issue", globs);
    expect(match(["get.issue"])).toBe(true);
    expect(match(["get.*"])).toBe(true);
    expect(match(["get?issue"])).toBe(true);
    expect(match(["mcp__github__*"])).toBe(true);
    expect(match(["mcp__github__get_issue"])).toBe(true);
    expect(match(["*"])).toBe(true);
    expect(match(["get"])).toBe(false);
    expect(match(["issue"])).toBe(false);
    expect(match(["get?"])).toBe(false);
    expect(match(["Get.*"])).toBe(false);
  });

  it("takes every other character literally: a dot is not any character", () => {
    expect(matchesToolGlob("getXissue", "mcp__s__getXissue", ["get.issue"])).toBe(false);
    expect(matchesToolGlob("a+b(c)[d]$", "mcp__s__a_b_c__d__", ["a+b(c)[d]$"])).toBe(true);
    expect(matchesToolGlob("a/b-c", "mcp__s__a_b-c", ["a/b-?"])).toBe(true);
  });

  it("lets * match nothing and ? match exactly one character, a non-ASCII one included", () => {
    expect(matchesToolGlob("list", "mcp__s__list", ["list*"])).toBe(true);
    expect(matchesToolGlob("café", "mcp__s__caf_", ["caf?"])).toBe(true);
    expect(matchesToolGlob("go🚀", "mcp__s__go_", ["go?"])).toBe(true);
    expect(matchesToolGlob("list", "mcp__s__list", ["list?"])).toBe(false);
  });

  it("matches nothing with no globs", () => {
    expect(matchesToolGlob("list", "mcp__s__list", undefined)).toBe(false);
    expect(matchesToolGlob("list", "mcp__s__list", [])).toBe(false);
  });
});
