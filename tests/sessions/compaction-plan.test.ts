import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { buildSummaryRequestText, planCompaction, trimOldToolResults } from "../../src/sessions/compaction.js";
import { isPlainUserMessage, repairMessages } from "../../src/sessions/repair.js";
import type { MessageRecord } from "../../src/sessions/records.js";
import type { ContentBlockParam, MessageParam } from "../../src/types.js";
import { messageProblems } from "../helpers/session-validity.js";
import { assistantText, assistantToolUse, record, toolResults, turn, user } from "./session-builders.js";

/** A long session: turns of 1 to 4 tool calls with results of varied size. */
function longSession(turns: number): MessageRecord[] {
  const records: MessageRecord[] = [];
  for (let t = 0; t < turns; t++) {
    records.push(user(`task ${t}`));
    for (let c = 0; c < (t % 4) + 1; c++) {
      const id = `toolu_${t}_${c}`;
      records.push(assistantToolUse([id]), toolResults([id], "x".repeat(200 * ((t + c) % 7))));
    }
    records.push(assistantText(`finished task ${t}`));
  }
  return records;
}

describe("planCompaction", () => {
  it("cuts a long session with many tool calls at a plain user message, keeping every pair whole", () => {
    const records = longSession(40);
    const plan = planCompaction(records, { keepTokens: 2_000 });
    expect(plan).not.toBeNull();
    const { cutIndex, kept, toSummarize, firstKeptId } = plan!;
    expect(cutIndex).toBeGreaterThan(0);
    expect(kept[0]?.id).toBe(firstKeptId);
    expect(isPlainUserMessage(kept[0]!.message)).toBe(true);
    expect([...toSummarize, ...kept]).toEqual(records);
    expect(messageProblems(kept.map((r) => r.message))).toEqual([]);
    expect(plan!.keptTokens).toBeLessThanOrEqual(2_000);
    expect(plan!.keptTokens).toBeGreaterThan(500);
  });

  it("keeps more than asked when no cut point follows the budget", () => {
    const records = [...turn(1), user("one long turn"), ...Array.from({ length: 5 }, (_, i) => [assistantToolUse([`t${i}`]), toolResults([`t${i}`], "y".repeat(2000))]).flat(), assistantText("done")];
    const plan = planCompaction(records, { keepTokens: 100 });
    expect(plan?.kept[0]?.message).toEqual({ role: "user", content: "one long turn" });
  });

  it("returns null when the only plain user message is the first", () => {
    const records = [user("start"), ...Array.from({ length: 6 }, (_, i) => [assistantToolUse([`t${i}`]), toolResults([`t${i}`])]).flat(), assistantText("done")];
    expect(planCompaction(records, { keepTokens: 10 })).toBeNull();
    expect(planCompaction([], { keepTokens: 10 })).toBeNull();
  });

  it("never cuts at a synthetic record", () => {
    const records = [...turn(1), user("real"), assistantText("ok"), user("synthetic", { synthetic: true }), assistantText("ok")];
    expect(planCompaction(records, { keepTokens: 1 })?.kept[0]?.message.content).toBe("real");
  });

  it("always yields a valid kept tail for random sessions", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 30 }), fc.integer({ min: 1, max: 5_000 }), (turns, keepTokens) => {
        const plan = planCompaction(longSession(turns), { keepTokens });
        if (plan === null) return;
        expect(isPlainUserMessage(plan.kept[0]!.message)).toBe(true);
        expect(messageProblems(plan.kept.map((r) => r.message))).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});

describe("buildSummaryRequestText", () => {
  it("asks for every section, quotes the messages and trims old tool results", () => {
    const records = longSession(3);
    records.push(toolResults(["big"], "z".repeat(5_000)));
    const text = buildSummaryRequestText(records);
    for (const section of ["Goal", "Constraints", "Progress", "Decisions", "Facts learned", "Open tasks", "Files", "Tool failures", "User preferences"]) {
      expect(text).toContain(`## ${section}`);
    }
    expect(text).toContain("[User]\ntask 0");
    expect(text).toContain('[Tool call read_file toolu_0_0] {"path":"toolu_0_0.txt"}');
    expect(text).not.toContain("z".repeat(500));
    expect(text).toContain("more characters]");
    expect(text).not.toContain("previous-summary");
  });

  it("asks to update a previous summary", () => {
    const text = buildSummaryRequestText(longSession(1), "## Goal\nship it");
    expect(text).toContain("<previous-summary>\n## Goal\nship it\n</previous-summary>");
    expect(text).toMatch(/Update that summary/);
  });
  it("renders web searches and fetches by query, title and URL, never their encrypted or page content, and leaves thinking out", () => {
    const records = [
      user("what changed in node 22?"),
      record("assistant", [
            { type: "thinking", thinking: "SECRET-THOUGHT", signature: "sig" },
            { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "node 22 changes" } },
            { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [{ type: "web_search_result", url: "https://nodejs.org/blog/22", title: "Node 22 is out", encrypted_content: "ENCRYPTED-BLOB", page_age: null }] },
            { type: "server_tool_use", id: "srvtoolu_2", name: "web_fetch", input: { url: "https://nodejs.org/blog/22" } },
            { type: "web_fetch_tool_result", tool_use_id: "srvtoolu_2", content: { type: "web_fetch_result", url: "https://nodejs.org/blog/22", retrieved_at: null, content: { type: "document", title: "Node 22 release notes", source: { type: "text", media_type: "text/plain", data: "PAGE-BODY" } } } },
            { type: "server_tool_use", id: "srvtoolu_3", name: "web_fetch", input: { url: "https://gone.example" } },
            { type: "web_fetch_tool_result", tool_use_id: "srvtoolu_3", content: { type: "web_fetch_tool_result_error", error_code: "url_not_accessible" } },
            { type: "text", text: "Node 22 adds require(esm)." },
      ] as ContentBlockParam[]),
    ];
    const text = buildSummaryRequestText(records);
    expect(text).toContain('[Server tool call web_search srvtoolu_1] "node 22 changes"');
    expect(text).toContain("[Server tool result srvtoolu_1] 1 result\n1. Node 22 is out — https://nodejs.org/blog/22");
    expect(text).toContain("[Server tool result srvtoolu_2] fetched Node 22 release notes");
    expect(text).toContain("[Server tool result srvtoolu_3 (error)] error: url_not_accessible");
    for (const hidden of ["ENCRYPTED-BLOB", "PAGE-BODY", "SECRET-THOUGHT"]) expect(text).not.toContain(hidden);
  });
});

describe("trimOldToolResults", () => {
  const result = (id: string, text: string): MessageParam => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: text }] });

  it("trims old oversized results with a marker, keeps recent ones and never mutates", () => {
    const messages: MessageParam[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "tool_use", id: "a", name: "read_file", input: {} }] },
      result("a", "A".repeat(1_000)),
      { role: "assistant", content: [{ type: "tool_use", id: "b", name: "read_file", input: {} }] },
      result("b", "B".repeat(1_000)),
    ];
    const copy = structuredClone(messages);
    const out = trimOldToolResults(messages, { keepRecent: 1, maxChars: 100 });
    expect(messages).toEqual(copy);
    expect(out[4]).toBe(messages[4]);
    const trimmed = (out[2]!.content as Array<{ content: Array<{ text: string }> }>)[0]!.content[0]!.text;
    expect(trimmed.startsWith("A".repeat(100) + "\n[… 900 characters")).toBe(true);
    expect(trimmed).toContain("the session file keeps it whole");
    expect(messageProblems(out)).toEqual([]);
  });
});

describe("repairMessages", () => {
  it("is idempotent on its own output", () => {
    const broken = [user("a"), assistantToolUse(["x"]), user("b"), user("c"), assistantText("d"), assistantText("e")];
    const once = repairMessages(broken, { afterSummary: false, tail: "turn-start", ts: 1, newId: () => "n" });
    const twice = repairMessages(once.records, { afterSummary: false, tail: "turn-start", ts: 1, newId: () => "n2" });
    expect(messageProblems(once.records.map((r) => r.message))).toEqual([]);
    expect(twice.records).toEqual(once.records);
    expect(twice.notes).toEqual([]);
  });
});
