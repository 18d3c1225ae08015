import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Rule, ScriptedModel } from "../../src/testing/index.js";
import { cleanEnv, startMain } from "../helpers/cli.js";
import { startTerminal } from "../helpers/pty.js";
import { scriptedModelPerTest } from "../helpers/turn.js";
import { tempDir } from "../helpers/temp-dir.js";

/** One scripted model per test, checked (no request rejected) and closed after it. */
const scripted = scriptedModelPerTest();

const RULES: Rule[] = [
  { match: /^think about/, reply: { thinking: "Secret reasoning about the drink.", text: "Thought it through.", delayMs: 5 } },
  {
    match: /node 20/,
    reply: {
      serverTools: [{ search: "node 20 release date", results: [{ url: "https://nodejs.org/en/blog/release/v20.0.0", title: "Node v20.0.0" }, { url: "https://example.com/n20", title: "Node 20" }] }],
      text: "18 April 2023.",
    },
  },
  { reply: "I heard: {{user_text}}" },
];

async function open(rules: Rule[] = RULES): Promise<{ model: ScriptedModel; dir: string; workspace: string; env: Record<string, string> }> {
  const model = await scripted(rules);
  const dir = await tempDir("miniclaw-repl-settings-");
  return { model, dir, workspace: join(dir, "ws"), env: cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" }) };
}

/** The effort and thinking settings of a recorded request. */
const settingsOf = (model: ScriptedModel, index = -1) => {
  const body = model.requests.at(index)!.body;
  return { thinking: body.thinking, effort: (body.output_config as { effort?: string } | undefined)?.effort };
};

describe("the REPL's effort and thinking in a terminal", () => {
  it("takes --effort, changes it with /effort for every later message, goes back with /effort default, and folds or shows thinking", async () => {
    const { model, dir, workspace, env } = await open();
    const term = startTerminal(["--workspace", workspace, "--effort", "low"], { env, cwd: dir });
    await term.waitFor(/Jarvis› /);
    const say = async (line: string, answer: RegExp): Promise<string> => {
      const mark = term.output().length;
      term.type(`${line}\r`);
      await term.waitFor(new RegExp(`${answer.source}[\\s\\S]*Jarvis› `), { from: mark });
      return term.output().slice(mark);
    };

    await say("/effort", /Effort: low for every agent \(from --effort; \/effort default goes back to each agent's own\)\./);
    await say("hello", /I heard: hello/);
    expect(settingsOf(model)).toEqual({ thinking: { type: "adaptive" }, effort: "low" });

    await say("/effort HIGH", /Effort: high for every agent, from the next message until the REPL ends/);
    await say("/effort", /Effort: high for every agent \(set by \/effort;/);
    await say("/research hello", /I heard: hello/);
    expect(settingsOf(model)).toEqual({ thinking: { type: "enabled", budget_tokens: 8000 }, effort: "high" });

    await say("/effort default", /Effort: back to each agent's own: Jarvis \(main\): the API's default; Scout \(researcher\): high \(SOUL\.md\)\./);
    await say("/research hi", /I heard: hi/);
    expect(settingsOf(model).effort).toBe("high");
    await say("hi", /I heard: hi/);
    expect(settingsOf(model).effort).toBeUndefined();
    await say("/effort extreme", /\/effort extreme: must be one of low, medium, high, xhigh, max, or default\. Usage: \/effort \[LEVEL\|default\]/);

    await say("/thinking", /Thinking: hidden, one dim "thinking…" line while the model thinks/);
    let shown = await say("think about tea", /Thought it through\./);
    expect(shown).toMatch(/thinking…thought for \d+\.\d s\nThought it through\./);
    expect(shown).not.toMatch(/Secret reasoning/);
    expect(term.raw()).toContain("thinking…\r\x1b[Kthought for ");

    await say("/thinking show", /Thinking: shown, streamed dim before each reply/);
    shown = await say("think about coffee", /Thought it through\./);
    expect(shown).toMatch(/Secret reasoning about the drink\.\n\(thought for \d+\.\d s\)\nThought it through\./);

    const cost = await say("/cost", /responses? ·/);
    expect(cost).toMatch(/tokens out \(\d+ thinking\)/);
    const help = await say("/help", /\/exit/);
    expect(help).toMatch(/\/effort \[LEVEL\] +low, medium, high, xhigh, max for every agent; default: each agent's own/);
    expect(help).toMatch(/\/thinking show\|hide +stream the model's thinking, or one line \(the default\)/);
    term.type("\x04");
    expect(await term.exited).toBe(0);
  }, 40_000);
});

describe("the REPL's web tool lines, in process", () => {
  it("shows a search and its result as tool lines, and /cost counts the search and its price", async () => {
    const { dir, workspace, env } = await open();
    const repl = startMain(["--workspace", workspace, "--agent", "researcher"], { env, cwd: dir, terminal: true });
    await repl.screen.waitFor(/Scout› /);
    let mark = repl.screen.output().length;
    repl.type("when was node 20 released?\r");
    await repl.screen.waitFor(/18 April 2023\.[\s\S]*Scout› /, { from: mark });
    const lines = repl.screen.output().slice(mark).split("\n");
    expect(lines.filter((line) => /^(→|  [✓✗])/.test(line))).toEqual(['→ web_search: "node 20 release date"', "  ✓ 2 results"]);
    mark = repl.screen.output().length;
    repl.type("/cost\r");
    await repl.screen.waitFor(/responses? ·.*· 1 web search \(\$0\.01\) · ~\$[\d.]+\n/, { from: mark });
    repl.type("/exit\r");
    expect((await repl.done).code).toBe(0);
  });
});
