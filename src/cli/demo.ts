// `miniclaw demo`: the REPL against the built-in scripted model in a temporary workspace, so a newcomer sees the loop without any key or any change to their files.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../errors.js";
import { createClient } from "../model/client.js";
import { ensureWorkspace } from "../runtime/workspace.js";
import { reply, startScriptedModel, type Rule } from "../testing/index.js";
import type { CliArgs } from "./args.js";
import type { CliIo } from "./io.js";
import { runRepl } from "./repl.js";

/** The model name the scripted demo model answers as. */
const DEMO_MODEL = "scripted-demo";
const HINT = 'Try: "hello", "what files are here?", "what is running on this machine?" (asks for approval), "remember that I like green tea", "/research when does Node 20 reach end of life?".';

/** The demo's script: a greeting, a safe tool call, a command that needs approval, a memory note, a web search by Scout. */
const DEMO_RULES: Rule[] = [
  {
    match: { system: /You are Scout/ },
    reply: reply.thinking(
      "The question is about a release schedule: search for the official end-of-life date, then answer with the source.",
      reply.search(
        "Node.js 20 end of life date",
        [
          { url: "https://nodejs.org/en/about/previous-releases", title: "Node.js — Node.js Releases" },
          { url: "https://endoflife.date/nodejs", title: "Node.js | endoflife.date" },
        ],
        {
          citations: true,
          text: "Node.js 20 reached its end of life on 30 April 2026 (source: nodejs.org, Node.js Releases). This answer and its search are scripted: the demo model stands in for the API's web_search.",
        },
      ),
    ),
  },
  { match: /\b(hello|hi|hey)\b/i, reply: { text: `Hello! I am the scripted demo model standing in for Claude. ${HINT}` } },
  { match: /files|folder|directory|\bls\b/i, reply: { text: "Let me look.", toolUses: [{ name: "run_command", input: { command: "ls -la" } }] } },
  { match: /running|processes/i, reply: { text: "I will ask to run ps (it lists other programs, so you decide).", toolUses: [{ name: "run_command", input: { command: "ps -e" } }] } },
  {
    match: /remember/i,
    reply: (req) => ({ toolUses: [{ name: "save_memory", input: { key: "preferences", content: firstUserText(req.body.messages ?? []) } }] }),
  },
  { match: { system: /summarise/ }, reply: { text: "The user tried the demo: a greeting, a look at the folder, a command that needed approval, and a memory note." } },
  { match: { toolResult: { name: "run_command" } }, reply: { text: "Here is what the command printed:\n\n{{tool_result}}" } },
  { match: { toolResult: { name: "save_memory" } }, reply: { text: "Noted: {{tool_result}} (see the memory folder of the workspace)." } },
  { reply: { text: `This is the scripted demo model: it only knows a few lines. ${HINT}` } },
];

/** The text the person typed: the first text block of the last user message (the time travels in a later block). */
function firstUserText(messages: Array<{ role: string; content: unknown }>): string {
  const last = messages.findLast((m) => m.role === "user")?.content;
  if (typeof last === "string") return last;
  return (Array.isArray(last) ? (last as Array<{ type: string; text?: string }>).find((b) => b.type === "text")?.text : undefined) ?? "";
}

/** Runs the REPL on the scripted model in a temporary workspace, removed at the end, so nothing reaches the person's own: `--workspace` is refused and MINICLAW_WORKSPACE is not read. */
export async function runDemo(args: CliArgs, io: CliIo): Promise<number> {
  if (args.workspace !== undefined) throw new ConfigError("miniclaw demo runs in a temporary workspace of its own and takes no --workspace (your workspace is never touched)");
  const folder = await mkdtemp(join(tmpdir(), "miniclaw-demo-"));
  const workspace = join(folder, "workspace");
  const model = await startScriptedModel(DEMO_RULES, { model: DEMO_MODEL });
  try {
    await ensureWorkspace(workspace);
    const client = createClient({ env: { ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "demo" }, maxRetries: 0 });
    return await runRepl({ ...args, workspace, session: args.session ?? "agent:main:demo" }, io, {
      client,
      banner: [
        `miniclaw demo: the scripted model "${DEMO_MODEL}" (a few canned lines, at ${model.baseURL}) answers instead of Claude; no key is used.`,
        `It runs in a temporary workspace, ${workspace}, removed when you leave: your own workspace is not touched.`,
      ].join("\n"),
    });
  } finally {
    await model.close();
    await rm(folder, { recursive: true, force: true });
  }
}
