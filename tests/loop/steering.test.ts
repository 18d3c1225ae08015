import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import type { Inbox, SteerMessage } from "../../src/types.js";
import type { ModeHolder } from "../../src/gate/context.js";
import { SessionStore } from "../../src/sessions/store.js";
import { defineTool } from "../../src/tools/define.js";
import type { RecordedRequest } from "../../src/testing/index.js";
import type { AgentEvent } from "../../src/types.js";
import { TEST_AGENT, tempWorkspace, turnOptions, scriptedModelPerTest, upperTool } from "../helpers/turn.js";

const scripted = scriptedModelPerTest();

/** An inbox in memory: `add` what the user types; `taken` and `deliveredIds` record what the loop did. */
function memoryInbox(): Inbox & { add(text: string, id?: string): void; deliveredIds: string[] } {
  let waiting: SteerMessage[] = [];
  const deliveredIds: string[] = [];
  return {
    deliveredIds,
    add(text, id) {
      waiting.push(id === undefined ? { text } : { id, text });
    },
    take() {
      const out = waiting;
      waiting = [];
      return out;
    },
    delivered(ids) {
      deliveredIds.push(...ids);
    },
  };
}

const lastUserTexts = (req: RecordedRequest): string[] => {
  const last = req.body.messages?.at(-1);
  if (!last || last.role !== "user" || typeof last.content === "string") return [];
  return last.content.flatMap((b) => (b.type === "text" ? [b.text] : []));
};

describe("steering a running turn", () => {
  it("puts a message sent while a tool runs after that round's tool results, never stopping the tool", async () => {
    const inbox = memoryInbox();
    let finished = false;
    const slow = defineTool({
      name: "slow",
      description: "Takes a moment.",
      input: z.object({}),
      readOnly: true,
      run: async () => {
        inbox.add("also check the weekend", "s1");
        await new Promise((r) => setTimeout(r, 100));
        finished = true;
        return "slow done";
      },
    });
    const m = await scripted([
      { match: (req) => lastUserTexts(req).some((t) => t.includes("weekend")), reply: "noted the weekend" },
      { reply: { toolUses: [{ name: "slow", input: {} }] } },
    ]);
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    const result = await runAgentTurn("k", "plan my week", TEST_AGENT, turnOptions(m, ws, events, { tools: [slow], inbox }));
    expect(finished).toBe(true);
    expect(result.text).toBe("noted the weekend");
    const last = m.requests[1]!.body.messages!.at(-1)!;
    expect(Array.isArray(last.content) && last.content.map((b) => b.type)).toEqual(["tool_result", "text"]);
    expect(lastUserTexts(m.requests[1]!)).toEqual(["The user added: also check the weekend"]);
    expect(events.filter((e) => e.type === "steer")).toEqual([{ type: "steer", text: "also check the weekend" }]);
    expect(inbox.deliveredIds).toEqual(["s1"]);
    const records = await new SessionStore(`${ws}/sessions`).show("k", { all: true });
    expect(records.some((r) => r.type === "message" && r.steerIds?.includes("s1"))).toBe(true);
  });

  it("starts a follow-up when a message arrives after the model's last reply, and takes a waiting one with the user's message", async () => {
    const inbox = memoryInbox();
    inbox.add("in metric units please");
    const m = await scripted([
      { match: (req) => lastUserTexts(req).some((t) => t.includes("shorter")), reply: "short answer" },
      { reply: { text: "a long answer" } },
    ]);
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    let typed = false;
    const onEvent = (e: AgentEvent): void => {
      events.push(e);
      // The user types while the first answer streams in.
      if (e.type === "text_delta" && !typed) {
        typed = true;
        inbox.add("shorter, please");
      }
    };
    const result = await runAgentTurn("k", "how far is the moon?", TEST_AGENT, turnOptions(m, ws, [], { inbox, onEvent }));
    expect(lastUserTexts(m.requests[0]!)).toEqual(["how far is the moon?", "The user added: in metric units please"]);
    expect(result.text).toBe("short answer");
    expect(m.requests).toHaveLength(2);
    expect(lastUserTexts(m.requests[1]!)).toEqual(["The user added: shorter, please"]);
  });

  it("delivers a message once across a crash between writing it and the inbox hearing so", async () => {
    const again: SteerMessage = { id: "crash-1", text: "use the blue theme" };
    let takes = 0;
    const inbox: Inbox = {
      take: () => (takes++ < 2 ? [again] : []),
      delivered: () => {
        throw new Error("the process died here");
      },
    };
    const m = await scripted([{ reply: "ok" }]);
    const ws = await tempWorkspace();
    await runAgentTurn("k", "first", TEST_AGENT, turnOptions(m, ws, [], { inbox }));
    await runAgentTurn("k", "second", TEST_AGENT, turnOptions(m, ws, [], { inbox }));
    const sent = m.requests.flatMap((r) => JSON.stringify(r.body.messages).match(/use the blue theme/g) ?? []);
    // The first request carries it; the second turn's request carries the history once, and no second copy.
    expect(sent).toHaveLength(2);
    expect(m.requests.at(-1)!.body.messages!.filter((msg) => JSON.stringify(msg).includes("blue theme"))).toHaveLength(1);
  });
});

describe("permission modes during a turn", () => {
  it("applies a change from the next tool call, records it in the session, reports it, and a reload sees it", async () => {
    const modes: ModeHolder = { mode: "default" };
    const m = await scripted([
      { match: { system: /summarise an assistant/ }, reply: "SUMMARY: a mode change." },
      { match: (req) => JSON.stringify(req.body.messages).includes("second call"), reply: "done" },
      { match: { toolResult: { name: "upper" } }, reply: { toolUses: [{ name: "write_note", input: { text: "second call" } }] } },
      { reply: { toolUses: [{ name: "upper", input: { text: "first call" } }] } },
    ]);
    const ws = await tempWorkspace();
    const writes: string[] = [];
    const writeNote = defineTool({ name: "write_note", description: "Writes a note.", input: z.object({ text: z.string() }), run: ({ text }) => (writes.push(text), "written") });
    const switching = { ...upperTool(), run: ({ text }: { text: string }) => ((modes.mode = "plan"), text.toUpperCase()) };
    const events: AgentEvent[] = [];
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, ws, events, { tools: [switching, writeNote], permissionMode: modes }));
    expect(writes).toEqual([]);
    expect(events.filter((e) => e.type === "mode")).toEqual([{ type: "mode", mode: "plan", previous: "default", by: "user" }]);
    const loaded = await new SessionStore(`${ws}/sessions`).load("k");
    expect(loaded.mode).toBe("plan");
    // A compaction carries the mode past its cut, so a load from the compaction on still knows it.
    const compacting = await runAgentTurn("k", "long " + "pad ".repeat(400), TEST_AGENT, turnOptions(m, ws, [], { tools: [switching, writeNote], permissionMode: modes, compactAt: 200 }));
    expect(compacting.stopReason).toBe("end_turn");
    const afterCut = await new SessionStore(`${ws}/sessions`).load("k");
    expect(afterCut.compaction?.mode).toBe("plan");
    expect(afterCut.mode).toBe("plan");
    const next = await runAgentTurn("k", "and now?", TEST_AGENT, turnOptions(m, ws, [], { tools: [switching, writeNote], permissionMode: modes }));
    expect(next.stopReason).toBe("end_turn");
    expect(lastUserTexts(m.requests.at(-1)!).some((t) => t.startsWith("<context>Plan mode is on"))).toBe(true);
  });
});

describe("exit_plan_mode", () => {
  /** A turn in plan mode: the model tries to write, proposes its plan, then writes again. */
  async function planThenWrite(decision: "allow_once" | "allow_always" | "unavailable") {
    const modes: ModeHolder = { mode: "plan" };
    const writes: string[] = [];
    const writeNote = defineTool({ name: "write_note", description: "Writes a note.", input: z.object({ text: z.string() }), run: ({ text }) => (writes.push(text), "written") });
    const refusedPlan = (req: RecordedRequest): boolean => {
      const last = req.body.messages?.at(-1);
      return Array.isArray(last?.content) && last.content.some((b) => b.type === "tool_result" && b.is_error === true) && JSON.stringify(req.body.messages?.at(-2)).includes("exit_plan_mode");
    };
    const m = await scripted([
      { match: refusedPlan, reply: "I will wait for you to leave plan mode." },
      { match: { toolResult: { name: "write_note", content: /^written/ } }, reply: "all done" },
      { match: { toolResult: { name: "exit_plan_mode" } }, reply: { toolUses: [{ name: "write_note", input: { text: "after the plan" } }] } },
      { match: { toolResult: { name: "write_note" } }, reply: { toolUses: [{ name: "exit_plan_mode", input: { plan: "1. write the note" } }] } },
      { reply: { toolUses: [{ name: "write_note", input: { text: "too early" } }] } },
    ]);
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    const asked: string[] = [];
    const approver = async (request: { tool: string; command: string }) => {
      asked.push(`${request.tool}: ${request.command}`);
      return decision;
    };
    const result = await runAgentTurn("k", "write a note", TEST_AGENT, turnOptions(m, ws, events, { tools: [writeNote], permissionMode: modes, approver }));
    const offered = m.requests.map((r) => (r.body.tools as Array<{ name: string }>).some((t) => t.name === "exit_plan_mode"));
    return { result, writes, modes, events, asked, offered, m, ws };
  }

  it("shows the approver the plan and carries it out in the mode chosen, recorded as exit_plan_mode's doing, the tool kept to the turn's end", async () => {
    const run = await planThenWrite("allow_once");
    expect(run.writes).toEqual(["after the plan"]);
    expect(run.asked).toEqual(["exit_plan_mode: 1. write the note"]);
    expect(run.modes.mode).toBe("default");
    // Offered from the start in plan mode, and kept for the rest of the turn (it refuses outside plan mode).
    expect(run.offered).toEqual([true, true, true, true]);
    expect(run.events.filter((e) => e.type === "mode")).toEqual([
      { type: "mode", mode: "plan", previous: "default", by: "user" },
      { type: "mode", mode: "default", previous: "plan", by: "exit_plan_mode" },
    ]);
    expect((await new SessionStore(`${run.ws}/sessions`).load("k")).mode).toBe("default");
    expect((await planThenWrite("allow_always")).modes.mode).toBe("acceptEdits");
  });

  it("is refused where nobody can answer (run, cron): the mode stays plan and nothing is written", async () => {
    const run = await planThenWrite("unavailable");
    expect(run.writes).toEqual([]);
    expect(run.modes.mode).toBe("plan");
    expect(run.result.text).toBe("I will wait for you to leave plan mode.");
  });
});

describe("lifecycle hooks", () => {
  it("lets onTurnStart add context, shows onTurnEnd the result, calls onBeforeCompact, and reports a throwing hook without breaking the turn", async () => {
    const m = await scripted([
      { match: { system: /summarise an assistant/ }, reply: "SUMMARY" },
      { reply: "fine" },
    ]);
    const ws = await tempWorkspace();
    const seen: string[] = [];
    const events: AgentEvent[] = [];
    const hooks = {
      onTurnStart: () => ({ context: "The user is on holiday until Monday." }),
      onTurnEnd: (result: { stopReason: string }) => {
        seen.push(`end ${result.stopReason}`);
      },
      onBeforeCompact: (info: { reason: string }) => {
        seen.push(`compact ${info.reason.slice(0, 15)}`);
        throw new Error("hook broke");
      },
    };
    await runAgentTurn("k", "hello " + "pad ".repeat(300), TEST_AGENT, turnOptions(m, ws, events, { hooks }));
    const result = await runAgentTurn("k", "again " + "pad ".repeat(300), TEST_AGENT, turnOptions(m, ws, events, { hooks, compactAt: 300 }));
    expect(result.stopReason).toBe("end_turn");
    expect(lastUserTexts(m.requests[0]!)).toContain("<context>The user is on holiday until Monday.</context>");
    expect(seen).toEqual(["end end_turn", "compact the context rea", "end end_turn"]);
    expect(events.filter((e) => e.type === "warning").map((e) => (e.type === "warning" ? e.message : ""))).toContain(
      "the onBeforeCompact hook failed (hook broke); the turn goes on without it",
    );
  });
});
