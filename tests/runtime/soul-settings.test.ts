import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadAgents } from "../../src/runtime/agents.js";
import { tempDir } from "../helpers/temp-dir.js";

/** A workspace with one agent `scout` whose frontmatter holds `fields`, plus a plain `main`. */
async function workspaceWith(fields: string): Promise<string> {
  const ws = await tempDir("miniclaw-soul-");
  for (const [id, extra] of [["main", ""], ["scout", fields]] as const) {
    await mkdir(join(ws, "agents", id), { recursive: true });
    await writeFile(join(ws, "agents", id, "SOUL.md"), `---\nname: ${id}\n${extra}\n---\nYou help.\n`);
  }
  return ws;
}

/** Loads the workspace; resolves to scout's settings, or the warning that says why it did not load. */
async function load(fields: string) {
  const warnings: string[] = [];
  const agents = await loadAgents(await workspaceWith(fields), { onWarning: (w) => warnings.push(w) });
  const scout = agents["scout"];
  return scout ? { thinking: scout.thinking, effort: scout.effort, web: scout.web, toolChoice: scout.toolChoice } : { refused: warnings.join("\n") };
}

describe("SOUL.md thinking, effort, web and tool_choice", () => {
  it("reads each setting as written", async () => {
    expect(await load("thinking: adaptive\neffort: high")).toEqual({ thinking: "adaptive", effort: "high", web: undefined, toolChoice: undefined });
    expect(await load("thinking: 8000\ntool_choice: auto")).toMatchObject({ thinking: 8000, toolChoice: "auto" });
    expect(await load("thinking: off\ntool_choice: memory_search")).toMatchObject({ thinking: "off", toolChoice: { tool: "memory_search" } });
    expect(await load("web: true")).toMatchObject({ web: { search: { maxUses: 5 }, fetch: { maxUses: 5, maxContentTokens: 20_000 } } });
    expect(await load("web: { search: { max_uses: 2, blocked_domains: [pinterest.com] } }")).toMatchObject({ web: { search: { maxUses: 2, blockedDomains: ["pinterest.com"] } } });
    expect(await load("web: false")).toMatchObject({ web: undefined });
  });

  it("refuses a bad value or a combination the API would refuse, naming the file and the field, and still loads the other agents", async () => {
    const cases: Array<[string, RegExp]> = [
      ["thinking: 512", /scout[/\\]SOUL\.md: thinking: a thinking budget must be at least 1024 tokens, got 512/],
      ["thinking: lots", /thinking: must be "adaptive", "off" or a thinking budget in tokens/],
      ["thinking: 8000\nmax_tokens: 4096", /thinking: budget 8000 must be below max_tokens \(4096\)/],
      ["effort: extreme", /effort: must be one of low, medium, high, xhigh, max, got "extreme"/],
      ["thinking: adaptive\ntool_choice: any", /tool_choice: forces a tool call, which the API refuses while thinking is on/],
      ["web: { fetch: { allowed_domains: [a.org], blocked_domains: [b.org] } }", /web.fetch: may give allowed_domains or blocked_domains, not both/],
      ["web: { search: { max_uses: 0 } }", /web.search.max_uses: must be greater than 0/],
      ["web: { serch: true }", /web: unknown field "serch"/],
    ];
    for (const [fields, expected] of cases) {
      const result = await load(fields);
      expect(result, fields).toHaveProperty("refused");
      expect((result as { refused: string }).refused, fields).toMatch(expected);
      expect((result as { refused: string }).refused, fields).toMatch(/^agent "scout" not loaded: /);
    }
  });
});
