// `miniclaw demo`: the REPL against the built-in scripted model, so a newcomer sees the loop without any key.
import { createClient } from "../model/client.js";
import { startScriptedModel, type Rule } from "../testing/index.js";
import type { CliArgs } from "./args.js";
import type { CliIo } from "./io.js";
import { runRepl } from "./repl.js";

const HINT = 'Try: "hello", "what files are here?", "how long has this machine been up?" (asks for approval), "remember that I like green tea".';

/** The demo's script: a greeting, a safe tool call, a command that needs approval, a memory note. */
export const DEMO_RULES: Rule[] = [
  { match: /\b(hello|hi|hey)\b/i, reply: { text: `Hello! I am the scripted demo model standing in for Claude. ${HINT}` } },
  { match: /files|folder|directory|\bls\b/i, reply: { text: "Let me look.", toolUses: [{ name: "run_command", input: { command: "ls -la" } }] } },
  { match: /\bup\b|uptime/i, reply: { text: "I will ask to run uptime (not on the safe list, so you decide).", toolUses: [{ name: "run_command", input: { command: "uptime" } }] } },
  { match: /remember/i, reply: { toolUses: [{ name: "save_memory", input: { key: "preferences", content: "{{user_text}}" } }] } },
  { match: { toolResult: { name: "run_command" } }, reply: { text: "Here is what the command printed:\n\n{{tool_result}}" } },
  { match: { toolResult: { name: "save_memory" } }, reply: { text: "Noted: {{tool_result}} (see the memory folder of the workspace)." } },
  { reply: { text: `This is the scripted demo model: it only knows a few lines. ${HINT}` } },
];

export async function runDemo(args: CliArgs, io: CliIo): Promise<number> {
  const model = await startScriptedModel(DEMO_RULES, { model: "scripted-demo" });
  try {
    const client = createClient({ env: { ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "demo" }, maxRetries: 0 });
    return await runRepl({ ...args, session: args.session ?? "agent:main:demo" }, io, {
      client,
      banner: `miniclaw demo: the scripted model at ${model.baseURL} answers instead of Claude; no key is used. Session files go to the workspace as usual.`,
    });
  } finally {
    await model.close();
  }
}
