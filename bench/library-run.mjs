// A library user's one-turn script: `runAgentTurn` of the built package with its defaults, one agent, one prompt; the final text on stdout.
import { loadAgents, runAgentTurn } from "miniclaw";

// `ANTHROPIC_BASE_URL=... node bench/library-run.mjs WORKSPACE [PROMPT]`: the workspace's main agent answers PROMPT in a new session.
const [workspace, prompt = "hi"] = process.argv.slice(2);
if (workspace === undefined) throw new Error("usage: node bench/library-run.mjs WORKSPACE [PROMPT]");
const agents = await loadAgents(workspace);
const result = await runAgentTurn("agent:main:bench", prompt, agents.main, { workspace });
process.stdout.write(`${result.text}\n`);
if (result.stopReason !== "end_turn") {
  process.stderr.write(`the turn ended ${result.stopReason}: ${result.error ?? ""}\n`);
  process.exitCode = 1;
}
