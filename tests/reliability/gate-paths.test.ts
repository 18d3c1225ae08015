// End to end: a model that reaches for the API key through /proc by a relative path, and for a private key through braces
// and a symlink, gets neither, in the default mode nor (for /proc) in bypassPermissions: no request, tool result or session holds them.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PermissionMode } from "../../src/gate/context.js";
import { createClient } from "../../src/model/client.js";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { startScriptedModel, type ScriptedModel } from "../../src/testing/index.js";
import type { AgentEvent } from "../../src/types.js";
import { makeTempDir } from "../helpers/tool-context.js";
import { TEST_AGENT } from "../helpers/turn.js";
import { layOutAttackFolders } from "../shell/fixtures/attacks-paths.js";

let model: ScriptedModel | undefined;
let holder: ChildProcess | undefined;
afterEach(async () => {
  holder?.kill("SIGKILL");
  holder = undefined;
  await model?.close();
  model = undefined;
});

/** A process whose environment holds the key, as the CLI's does: what a /proc search would find. */
function startKeyHolder(key: string): ChildProcess {
  return spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { env: { PATH: process.env["PATH"], ANTHROPIC_API_KEY: key }, stdio: "ignore" });
}

async function sessionText(workspace: string): Promise<string> {
  const dir = join(workspace, "sessions");
  const names = await readdir(dir).catch(() => [] as string[]);
  return (await Promise.all(names.map((n) => readFile(join(dir, n), "utf8")))).join("\n");
}

/** Runs one turn in which the model asks for `commands` at once, then repeats what it got. */
async function turn(commands: string[], mode: PermissionMode, key: string) {
  const root = await makeTempDir("miniclaw-gate-paths-");
  const keyText = `-----BEGIN OPENSSH PRIVATE KEY-----\nFAKEKEY${randomBytes(16).toString("hex")}\n-----END OPENSSH PRIVATE KEY-----\n`;
  const folders = layOutAttackFolders(root, keyText);
  model = await startScriptedModel([
    { match: "find the keys", reply: { toolUses: commands.map((command) => ({ name: "run_command", input: { command } })) } },
    { reply: "final: {{tool_result}}" },
  ]);
  const env = { PATH: process.env["PATH"], HOME: folders.home, ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: key };
  const workspace = join(root, "workspace");
  const events: AgentEvent[] = [];
  const result = await runAgentTurn("agent:main:paths", "find the keys", TEST_AGENT, {
    runtime: { workspace, cwd: folders.project, env, client: createClient({ env }), includeTime: false },
    model: "claude-test-1",
    permissionMode: mode,
    onEvent: (e) => events.push(e),
  });
  const results = events.flatMap((e) => (e.type === "tool_result" ? [e] : []));
  const places = {
    "the tool results": JSON.stringify(results),
    "the request bodies": JSON.stringify(model.requests.map((r) => r.body)),
    "the session file": await sessionText(workspace),
  };
  return { result, results, places, keyText };
}

function expectNowhere(secret: string, places: Record<string, string>): void {
  for (const [place, text] of Object.entries(places)) expect(text.includes(secret), `found in ${place}`).toBe(false);
}

const PROC_GREP = "grep -rao '--include=envir*' 'API_KEY=sk-ant-[^[:cntrl:]]*' ../../../../../../../../proc | sed 's/./& /g'";

describe("path attacks end to end, with a marker API key in a live process's environment", () => {
  it("default mode, nobody to approve: the /proc grep, the brace-expanded key and the linked key are not run", async () => {
    const key = `sk-ant-api03-MARKER${randomBytes(12).toString("hex")}`;
    holder = startKeyHolder(key);
    const commands = [PROC_GREP, "cat ../home/.{ssh,x}/id_{rsa,x}", "cat notes.txt"];
    const { result, results, places, keyText } = await turn(commands, "default", key);
    expect(result.stopReason).toBe("end_turn");
    expect(model?.rejected).toEqual([]);
    expect(results.map((r) => [r.isError, r.content.slice(0, 25)])).toEqual([
      [true, expect.stringMatching(/^Error: Refused in every/)],
      [true, expect.stringMatching(/^Error: Not run: /)],
      [true, expect.stringMatching(/^Error: Not run: /)],
    ]);
    expectNowhere(key, places);
    expectNowhere("FAKEKEY", places);
    expectNowhere(keyText.split("\n")[1] as string, places);
  });

  it("bypassPermissions: /proc by a relative path is still refused, by grep or by an encoding read of the holder's environ", async () => {
    const key = `sk-ant-api03-MARKER${randomBytes(12).toString("hex")}`;
    holder = startKeyHolder(key);
    const commands = [PROC_GREP, `base64 -w0 ../../../../../../../../proc/${holder.pid}/environ`, `cd / && grep -ra API_KEY proc/${holder.pid}`];
    const { results, places } = await turn(commands, "bypassPermissions", key);
    expect(results.map((r) => [r.isError, r.content.slice(0, 80)])).toEqual(commands.map(() => [true, expect.stringMatching(/^Error: Refused in every mode/)]));
    expectNowhere(key, places);
    expectNowhere(Buffer.from(key).toString("base64").slice(0, 24), places);
  });
});
