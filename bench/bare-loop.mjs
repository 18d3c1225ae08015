// The bare loop: the smallest messages.create tool loop, the baseline miniclaw's overhead is measured against.
import Anthropic from "@anthropic-ai/sdk";
import { pathToFileURL } from "node:url";

const MODEL = "claude-sonnet-5-5";
const TOOLS = [
  {
    name: "echo",
    description: "Returns its text.",
    input_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
];

/**
 * One turn of at most `rounds` requests (streamed with `stream`): tool calls answered until the model answers with text.
 * `request` replaces the fields of every request but the messages (another harness's system prompt and tools, say).
 */
export async function runBareLoop({ baseURL, apiKey = "x", rounds = 20, prompt = "hi", stream = false, request = {} }) {
  const client = new Anthropic({ baseURL, apiKey });
  const messages = [{ role: "user", content: prompt }];
  for (let round = 1; round <= rounds; round++) {
    const params = { model: MODEL, max_tokens: 1024, tools: TOOLS, ...request, messages };
    const message = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
    messages.push({ role: "assistant", content: message.content });
    const calls = message.content.filter((block) => block.type === "tool_use");
    if (message.stop_reason !== "tool_use") {
      return message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
    }
    const results = calls.map((call) => ({ type: "tool_result", tool_use_id: call.id, content: String(call.input.text) }));
    messages.push({ role: "user", content: results });
  }
  return "";
}

// Run directly: `ANTHROPIC_BASE_URL=... node bench/bare-loop.mjs [ROUNDS]` prints the final text.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const env = process.env;
  const text = await runBareLoop({ baseURL: env.ANTHROPIC_BASE_URL, apiKey: env.ANTHROPIC_API_KEY, rounds: Number(process.argv[2] ?? 20) });
  process.stdout.write(`${text}\n`);
}
