// The assistant the REPL and cron run on: one permission mode per process that a running turn follows, steering through the durable inbox, and the workspace's agents for delegate.
import { access, mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Approver } from "../../src/deps.js";
import { openAssistant, type Assistant } from "../../src/assistant/assistant.js";
import { SessionStore } from "../../src/sessions/store.js";
import type { RecordedRequest, Rule } from "../../src/testing/index.js";
import type { AgentEvent } from "../../src/types.js";
import { cleanEnv } from "../helpers/cli.js";
import { clientFor } from "../helpers/scripted.js";
import { scriptedModelPerTest } from "../helpers/turn.js";
import { tempDir } from "../helpers/temp-dir.js";

const scripted = scriptedModelPerTest();

/** A workspace whose main agent may delegate to the researcher. */
async function workspaceWithAgents(): Promise<{ dir: string; workspace: string }> {
  const dir = await tempDir("miniclaw-assistant-");
  const workspace = join(dir, "ws");
  for (const [id, front] of [["main", "name: Jarvis\ndelegates: [researcher]"], ["researcher", "name: Scout"]] as const) {
    await mkdir(join(workspace, "agents", id), { recursive: true });
    await writeFile(join(workspace, "agents", id, "SOUL.md"), `---\n${front}\n---\nYou are ${id}.\n`);
  }
  return { dir, workspace };
}

async function open(rules: Rule[], approver?: Approver): Promise<{ assistant: Assistant; workspace: string; dir: string; requests: RecordedRequest[] }> {
  const model = await scripted(rules);
  const { dir, workspace } = await workspaceWithAgents();
  const assistant = await openAssistant({ workspace, cwd: dir, env: cleanEnv(), client: clientFor(model), includeTime: false, ...(approver && { approver }) });
  return { assistant, workspace, dir, requests: model.requests };
}

/** The text blocks of a request's last user message. */
const lastUserTexts = (req: RecordedRequest | undefined): string[] => {
  const last = req?.body.messages?.at(-1);
  if (!last) return [];
  if (typeof last.content === "string") return [last.content];
  return last.content.flatMap((b) => (b.type === "text" ? [b.text] : []));
};

describe("the assistant's steering", () => {
  it("steer() waits in the session's inbox until its next turn, which takes it with the user's message once", async () => {
    const { assistant, requests, workspace } = await open([{ reply: "ok" }]);
    const id = await assistant.steer("agent:main:main", "in metric units, please");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const events: AgentEvent[] = [];
    await assistant.send("how far is the moon?", { onEvent: (e) => events.push(e) });
    await assistant.send("and the sun?");
    await assistant.close();
    expect(lastUserTexts(requests[0])).toEqual(["how far is the moon?", "The user added: in metric units, please"]);
    expect(lastUserTexts(requests[1])).toEqual(["and the sun?"]);
    expect(events.filter((e) => e.type === "steer")).toEqual([{ type: "steer", text: "in metric units, please" }]);
    const records = await new SessionStore(join(workspace, "sessions")).show("agent:main:main", { all: true });
    expect(records.flatMap((r) => (r.type === "message" ? (r.steerIds ?? []) : []))).toEqual([id]);
  });

  it("a steer sent while a tool runs joins the next request of that turn, after the tool's result", async () => {
    let assistant: Assistant | undefined;
    const approver: Approver = async () => {
      // The user answers the approval, then types a steering line before the command has run.
      await assistant!.steer("agent:main:main", "then list the folder too");
      return "allow_once";
    };
    const opened = await open(
      [
        { match: { toolResult: { name: "run_command" } }, reply: "did both" },
        { reply: { toolUses: [{ name: "run_command", input: { command: "touch made.txt" } }] } },
      ],
      approver,
    );
    assistant = opened.assistant;
    const result = await assistant.send("make a file");
    await assistant.close();
    expect(result.text).toBe("did both");
    expect(opened.requests).toHaveLength(2);
    const last = opened.requests[1]!.body.messages!.at(-1)!;
    expect(Array.isArray(last.content) && last.content.map((b) => b.type)).toEqual(["tool_result", "text"]);
    expect(lastUserTexts(opened.requests[1])).toEqual(["The user added: then list the folder too"]);
  });
});

describe("the assistant's permission mode", () => {
  it("a mode set while a turn runs applies from its next tool call, is recorded by the turn, and holds for the next turn", async () => {
    const opened = await open([
      { match: { toolResult: { name: "write_file" } }, reply: "write said: {{tool_result}}" },
      { match: { toolResult: { name: "run_command" } }, reply: { toolUses: [{ name: "write_file", input: { path: "notes.txt", content: "x" } }] } },
      { match: "next", reply: "planning" },
      { reply: { toolUses: [{ name: "run_command", input: { command: "echo hi" } }] } },
    ]);
    const { assistant } = opened;
    expect(assistant.permissionMode).toBe("default");
    const events: AgentEvent[] = [];
    const onEvent = (e: AgentEvent): void => {
      events.push(e);
      // The user switches to plan mode while the turn goes on (the REPL's /mode during a turn).
      if (e.type === "tool_result" && e.name === "run_command") assistant.setPermissionMode("plan");
    };
    const result = await assistant.send("make files", { onEvent });
    expect(result.text).toMatch(/^write said: Error: Plan mode is read-only: writing .*notes.txt is not allowed/);
    await expect(access(join(opened.dir, "notes.txt"))).rejects.toThrow();
    expect(events.filter((e) => e.type === "tool_result").map((e) => e.type === "tool_result" && [e.name, e.isError])).toEqual([
      ["run_command", false],
      ["write_file", true],
    ]);
    expect(events.filter((e) => e.type === "mode")).toEqual([{ type: "mode", mode: "plan", previous: "default", by: "user" }]);
    expect(assistant.permissionMode).toBe("plan");

    await assistant.send("next");
    await assistant.close();
    expect(lastUserTexts(opened.requests.at(-1)).join("\n")).toMatch(/Plan mode is on/);
    const records = await new SessionStore(join(opened.workspace, "sessions")).show("agent:main:main", { all: true });
    expect(records.flatMap((r) => (r.type === "mode" ? [[r.mode, r.by]] : []))).toEqual([["plan", "user"]]);
  });

  it("keeps the mode exit_plan_mode's approval chose for the process's later turns", async () => {
    const approver: Approver = async (request) => (request.tool === "exit_plan_mode" ? "allow_always" : "deny_once");
    const opened = await open(
      [
        { match: { toolResult: { name: "exit_plan_mode" } }, reply: "{{tool_result}}" },
        { match: "go", reply: { toolUses: [{ name: "exit_plan_mode", input: { plan: "1. write notes.txt" } }] } },
        { reply: "fine" },
      ],
      approver,
    );
    opened.assistant.setPermissionMode("plan");
    const result = await opened.assistant.send("go");
    expect(result.text).toMatch(/The permission mode is now acceptEdits/);
    expect(opened.assistant.permissionMode).toBe("acceptEdits");
    await opened.assistant.send("then what?");
    await opened.assistant.close();
    expect(lastUserTexts(opened.requests.at(-1)).join("\n")).not.toMatch(/Plan mode is on/);
  });
});

describe("the assistant's agents", () => {
  it("gives every turn the workspace's agents, so an agent with delegates hands a task to a subagent in a session of its own", async () => {
    const opened = await open([
      { match: { toolResult: { name: "delegate" } }, reply: "Scout said: {{tool_result}}" },
      { match: { system: /You are researcher/ }, reply: "18 April 2023" },
      { reply: { toolUses: [{ name: "delegate", input: { agent: "researcher", task: "When was Node 20 released?" } }] } },
    ]);
    const events: AgentEvent[] = [];
    const result = await opened.assistant.send("ask Scout about node 20", { onEvent: (e) => events.push(e) });
    await opened.assistant.close();
    expect(result.text).toBe("Scout said: 18 April 2023");
    expect(events.filter((e) => e.type === "subagent_start" || e.type === "subagent_end").map((e) => e.type)).toEqual(["subagent_start", "subagent_end"]);
    const listed = await new SessionStore(join(opened.workspace, "sessions")).list();
    const child = listed.find((s) => s.agentId === "researcher");
    expect(child?.parent).toEqual({ sessionKey: "agent:main:main", toolUseId: expect.any(String) });
    expect((await readdir(join(opened.workspace, "sessions"))).filter((name) => name.endsWith(".jsonl"))).toHaveLength(2);
  });

  it("records a mode set between turns in the session at once, so a reload keeps it though no turn followed; a session that does not exist is left alone", async () => {
    const { assistant, workspace } = await open([{ reply: "hello" }]);
    try {
      await assistant.send("hi");
      const key = assistant.sessionKeyFor("main");
      assistant.setPermissionMode("plan");
      await assistant.recordPermissionMode(key, "main");
      const store = new SessionStore(join(workspace, "sessions"));
      expect((await store.load(key)).mode).toBe("plan");
      await assistant.recordPermissionMode("agent:main:never-used", "main");
      expect(await store.exists("agent:main:never-used")).toBe(false);
    } finally {
      await assistant.close();
    }
  });
});
