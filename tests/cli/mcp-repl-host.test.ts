// The REPL as an MCP host: a server's prompt is a command whose text is sent, a server's form is filled in at the terminal.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cleanEnv } from "../helpers/cli.js";
import { startTerminal } from "../helpers/pty.js";
import { scriptedModelPerTest } from "../helpers/turn.js";
import { mcpWorkspace } from "./mcp-workspace.js";

const ASKING = fileURLToPath(new URL("../fixtures/mcp/asking-server.mjs", import.meta.url));
const scripted = scriptedModelPerTest();

describe("MCP prompts and forms in the REPL", () => {
  it("sends a prompt's text for /mcp__server__prompt, and fills in a server's form field by field", async () => {
    const model = await scripted([
      { match: { toolResult: {} }, reply: "got: {{tool_result}}" },
      { match: /who am i/, reply: { toolUses: [{ name: "mcp__ask__ask_name", input: {} }] } },
      { reply: "I heard: {{user_text}}" },
    ]);
    const { dir, workspace } = await mcpWorkspace({ ask: { command: process.execPath, args: [ASKING], readOnly: ["ask_name"] } });
    const term = startTerminal(["--workspace", workspace], { env: cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" }), cwd: dir });
    await term.waitFor(/Jarvis› /);
    term.type("/mcp__ask__greet Ada\r");
    await term.waitFor(/I heard: Say hello to Ada\.\n/);
    term.type("who am i\r");
    await term.waitFor(/MCP server "ask" asks: Who are you\?\n/);
    await term.waitFor(/Name: $/);
    term.type("Grace\r");
    await term.waitFor(/Admin \(optional\) \[y\/n\] $/);
    term.type("y");
    await term.waitFor(/Send it\? \[s\]end \/ \[d\]ecline \/ \[c\]ancel $/);
    term.type("s");
    await term.waitFor(/got: accept: \{"name":"Grace","admin":true\}\n/);
    term.type("\x04");
    expect(await term.exited).toBe(0);
  });
});
