// Record a wake-up of the Weekend Researcher once, replay it offline: it passes, then fails on a changed tool with the difference named.
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { defineTool, loadAgents, runAgentTurn, type AgentConfig } from "../../src/index.js";
import { createClient } from "../../src/model/client.js";
import { recordCassette, replay, startScriptedModel } from "../../src/testing/index.js";
import { EXAMPLE_WORKSPACE } from "./offline.js";

const PROMPT = "Wake-up: plan the coming weekend on the coast.";

/** The researcher's own tool in this example: a forecast, whose description a later version changes. */
const forecast = (description: string) =>
  defineTool({ name: "forecast", description, input: z.object({ place: z.string() }), access: "read", run: ({ place }) => `${place}: sunny, 24 °C on Saturday` });

/** One wake-up of the researcher (its tools narrowed to the forecast) against `baseURL`, in a workspace of its own. */
async function wakeUp(agent: AgentConfig, baseURL: string, description: string, wrapFetch?: (fetch: typeof globalThis.fetch) => typeof globalThis.fetch): Promise<string> {
  const workspace = await mkdtemp(join(tmpdir(), "miniclaw-replay-example-"));
  try {
    await cp(EXAMPLE_WORKSPACE, workspace, { recursive: true });
    const client = createClient({ env: { ANTHROPIC_API_KEY: "example", ANTHROPIC_BASE_URL: baseURL }, maxRetries: 0, ...(wrapFetch && { wrapFetch }) });
    const result = await runAgentTurn("agent:researcher:weekend", PROMPT, agent, { runtime: { workspace, client, builtinTools: false }, model: "claude-sonnet-5-5", tools: [forecast(description)] });
    return result.error ?? result.text;
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

/** Records, replays as is, replays with the tool changed; resolves to the lines it prints. */
export async function recordAndReplay(dir: string, say: (line: string) => void = console.log): Promise<{ pass: string[]; changed: string[] }> {
  const agents = await loadAgents(EXAMPLE_WORKSPACE, { create: false });
  const agent: AgentConfig = { ...agents["researcher"]!, tools: ["forecast"], web: {} };
  const model = await startScriptedModel([
    { match: { toolResult: { name: "forecast" } }, reply: "Go to Étretat: {{tool_result}}." },
    { reply: { toolUses: [{ name: "forecast", input: { place: "Étretat" } }] } },
  ]);
  const file = join(dir, "wake-up.jsonl");
  try {
    const recorder = recordCassette(file);
    recorder.turn(PROMPT, "agent:researcher:weekend");
    say(`recorded: ${await wakeUp(agent, model.baseURL, "The weather forecast for a place.", recorder.wrap)} (${file})`);
  } finally {
    await model.close();
  }
  const run = async (description: string): Promise<string[]> => {
    const server = await replay(file);
    try {
      await wakeUp(agent, server.baseURL, description);
      return server.differences;
    } finally {
      await server.close();
    }
  };
  const pass = await run("The weather forecast for a place.");
  say(pass.length === 0 ? "replay, same tool: pass" : `replay, same tool: ${pass[0]}`);
  const changed = await run("The weather forecast for a place, by the hour.");
  say(changed.length === 0 ? "replay, tool changed: pass (unexpected)" : `replay, tool changed: ${changed[0]}`);
  return { pass, changed };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = await mkdtemp(join(tmpdir(), "miniclaw-cassette-"));
  await recordAndReplay(dir);
}
