// The bare shell loop: the smallest messages.create tool loop whose one tool runs a command with `/bin/bash -c` through child_process, the baseline of the whole-process rows;
// with `stream`, each request is streamed (`messages.stream(...).finalMessage()`), as miniclaw streams its requests.
import Anthropic from "@anthropic-ai/sdk";
import { spawn } from "node:child_process";

const MODEL = "claude-sonnet-5-5";
const TOOLS = [
  {
    name: "run_command",
    description: "Runs a bash command and returns its exit code, stdout and stderr.",
    input_schema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  },
];

/** Runs `command` with `/bin/bash -c` (stdin closed) and resolves to its exit code and output, as one text. */
function runCommand(command) {
  return new Promise((resolve) => {
    const child = spawn("/bin/bash", ["-c", command], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    child.on("error", (error) => resolve(`error: ${error.message}`));
    child.on("close", (code) => resolve(`exit code: ${code}\n\nstdout:\n${stdout}${stderr ? `\nstderr:\n${stderr}` : ""}`));
  });
}

/** One turn of at most `rounds` requests: every run_command call answered in order until the model answers with text. */
export async function runBareShellLoop({ baseURL, apiKey = "x", rounds = 20, prompt = "hi", stream = false }) {
  const client = new Anthropic({ baseURL, apiKey });
  const messages = [{ role: "user", content: prompt }];
  for (let round = 1; round <= rounds; round++) {
    const params = { model: MODEL, max_tokens: 1024, tools: TOOLS, messages };
    const message = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
    messages.push({ role: "assistant", content: message.content });
    if (message.stop_reason !== "tool_use") {
      return message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
    }
    const calls = message.content.filter((block) => block.type === "tool_use");
    const results = [];
    for (const call of calls) results.push({ type: "tool_result", tool_use_id: call.id, content: await runCommand(String(call.input.command)) });
    messages.push({ role: "user", content: results });
  }
  return "";
}

// Run as a process: `ANTHROPIC_BASE_URL=... node bench/bare-shell-loop.mjs [ROUNDS] [PROMPT] [stream]` prints the final text.
const env = process.env;
const [rounds = "20", prompt = "hi", mode] = process.argv.slice(2);
const text = await runBareShellLoop({ baseURL: env.ANTHROPIC_BASE_URL, apiKey: env.ANTHROPIC_API_KEY, rounds: Number(rounds), prompt, stream: mode === "stream" });
process.stdout.write(`${text}\n`);
