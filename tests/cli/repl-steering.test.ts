// Steering in the REPL on a real terminal: a line typed during a turn joins its next request, /queue followup makes lines wait, and miniclaw steer from another terminal reaches the running turn.
import { access } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RecordedRequest, Rule } from "../../src/testing/index.js";
import { cleanEnv, runCli } from "../helpers/cli.js";
import { startTerminal, type Terminal } from "../helpers/pty.js";
import { scriptedModelPerTest } from "../helpers/turn.js";
import { tempDir } from "../helpers/temp-dir.js";

const scripted = scriptedModelPerTest();

/** "work N" runs a command that marks `started-N` and takes a second; its result is answered "worked". */
const RULES: Rule[] = [
  { match: { toolResult: { name: "run_command" } }, reply: "worked" },
  ...[1, 2].map((n): Rule => ({ match: new RegExp(`^work ${n}`), reply: { toolUses: [{ name: "run_command", input: { command: `touch started-${n} && sleep 1` } }] } })),
  { match: /^slow reply/, fault: { delayMs: 1_000, afterEvents: 2 }, reply: "Done waiting." },
  { reply: "I heard: {{user_text}}" },
];

async function open() {
  const model = await scripted(RULES);
  const dir = await tempDir("miniclaw-repl-steer-");
  const workspace = join(dir, "ws");
  const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" });
  const term = startTerminal(["--workspace", workspace, "--permission-mode", "bypassPermissions"], { env, cwd: dir });
  await term.waitFor(/Jarvis \(bypassPermissions\)› $/);
  /** Resolves once the command of "work N" runs (the model's call made, the gate passed). */
  const running = async (n: number): Promise<void> => {
    const marker = join(dir, `started-${n}`);
    for (let waited = 0; !(await access(marker).then(() => true, () => false)); waited += 20) {
      if (waited > 10_000) throw new Error(`the command of "work ${n}" did not start; screen so far:\n${term.output()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { model, dir, workspace, term, running };
}

/** Every text block of a request's last user message, and the types of its blocks. */
function lastUser(req: RecordedRequest | undefined): { types: string[]; texts: string[] } {
  const last = req?.body.messages?.at(-1);
  const blocks = !last ? [] : typeof last.content === "string" ? [{ type: "text" as const, text: last.content }] : last.content;
  return { types: blocks.map((b) => b.type), texts: blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])) };
}

const count = (text: string, part: string): number => text.split(part).length - 1;

async function typeDuring(term: Terminal, line: string, shown: RegExp): Promise<void> {
  const mark = term.output().length;
  term.type(`${line}\r`);
  await term.waitFor(shown, { from: mark });
}

describe("steering in the REPL", () => {
  it("a line typed while a tool runs is shown as (steer) once and joins the next request after the tool's result; /queue followup makes lines wait for the turn's end", async () => {
    const { model, term, running } = await open();
    let mark = term.output().length;
    term.type("work 1\r");
    await running(1);
    await typeDuring(term, "also check the logs", /\(steer\) also check the logs\n/);
    await typeDuring(term, "/research is this steered?", /queued: \/research is this steered\?\n/);
    await term.waitFor(/worked\n[\s\S]*Jarvis \(bypassPermissions\)› \/research is this steered\?\n[\s\S]*I heard: is this steered\?\n[\s\S]*Jarvis \(bypassPermissions\)› $/, { from: mark });
    expect(count(term.output().slice(mark), "(steer) also check the logs")).toBe(1);
    expect(lastUser(model.requests[1])).toEqual({ types: ["tool_result", "text"], texts: ["The user added: also check the logs"] });
    expect(lastUser(model.requests[2]).texts[0]).toBe("is this steered?");

    await typeDuring(term, "/queue", /Lines typed while a turn runs steer it: each joins its next request \(\/queue followup makes them wait for the turn's end\)\.\n/);
    await typeDuring(term, "/queue followup", /Lines typed while a turn runs wait for it to end, then go as messages of their own/);
    mark = term.output().length;
    term.type("work 2\r");
    await running(2);
    await typeDuring(term, "next question", /queued: next question\n/);
    await term.waitFor(/worked\n[\s\S]*› next question\nI heard: next question\n[\s\S]*› $/, { from: mark });
    expect(lastUser(model.requests[4]).texts).toEqual([]);
    expect(lastUser(model.requests[5]).texts[0]).toBe("next question");

    await typeDuring(term, "/queue steer", /Lines typed while a turn runs steer it/);
    term.type("\x04");
    expect(await term.exited).toBe(0);
  }, 40_000);

  it("a line typed while the reply streams starts a follow-up in the same turn, its answer on a line of its own", async () => {
    const { model, term } = await open();
    const mark = term.output().length;
    term.type("slow reply\r");
    // Typed once the request is under way: a line typed before it joins the message itself.
    while (model.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    await typeDuring(term, "in French", /\(steer\) in French\n/);
    await term.waitFor(/Done waiting\.\nI heard: The user added: in French\n[\s\S]*› $/, { from: mark });
    expect(model.requests).toHaveLength(2);
    expect(lastUser(model.requests[1]).texts).toEqual(["The user added: in French"]);
    term.type("\x04");
    expect(await term.exited).toBe(0);
  }, 30_000);

  it("/mode typed during a turn applies at once and is not a steering message", async () => {
    const { model, term, running } = await open();
    const mark = term.output().length;
    term.type("work 1\r");
    await running(1);
    await typeDuring(term, "/mode acceptEdits", /Permission mode: acceptEdits: .*From the next tool call on\.\n/);
    await term.waitFor(/worked\n[\s\S]*Jarvis \(acceptEdits\)› $/, { from: mark });
    expect(term.output().slice(mark)).not.toMatch(/\(steer\)|queued:/);
    expect(lastUser(model.requests[1]).types).toEqual(["tool_result"]);
    term.type("\x04");
    expect(await term.exited).toBe(0);
  }, 30_000);

  it("miniclaw steer from another terminal reaches the turn running in the REPL, which shows it as (steer)", async () => {
    const { model, dir, workspace, term, running } = await open();
    const mark = term.output().length;
    term.type("work 1\r");
    await running(1);
    const steer = await runCli(["steer", "agent:main:main", "from", "afar", "--workspace", workspace], { env: cleanEnv(), cwd: dir });
    expect(steer.code).toBe(0);
    await term.waitFor(/\(steer\) from afar\nworked\n[\s\S]*› $/, { from: mark });
    expect(lastUser(model.requests[1]).texts).toEqual(["The user added: from afar"]);
    term.type("\x04");
    expect(await term.exited).toBe(0);
  }, 30_000);
});
