// The sandbox as a person sets it: --sandbox, MINICLAW_SANDBOX, the workspace's settings.json, and the one line when commands run unsandboxed.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/cli/args.js";
import { sandboxOf } from "../../src/cli/assistant-setup.js";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { scriptedModelPerTest } from "../helpers/turn.js";
import { tempDir } from "../helpers/temp-dir.js";

const scripted = scriptedModelPerTest();

async function workspaceWith(settings?: object): Promise<string> {
  const dir = await tempDir("miniclaw-settings-");
  if (settings !== undefined) await writeFile(join(dir, "settings.json"), JSON.stringify(settings));
  return dir;
}

describe("the sandbox setting", () => {
  it("takes --sandbox over MINICLAW_SANDBOX over settings.json, whose network holds for approved commands", async () => {
    const ws = await workspaceWith({ sandbox: { mode: "auto", network: "deny" } });
    expect(await sandboxOf(parseCliArgs(["run", "x"]), { env: {} }, ws)).toEqual({ mode: "auto", network: "deny" });
    expect(await sandboxOf(parseCliArgs(["run", "x"]), { env: { MINICLAW_SANDBOX: "on" } }, ws)).toEqual({ mode: "on", network: "deny" });
    expect(await sandboxOf(parseCliArgs(["run", "--sandbox", "off", "x"]), { env: { MINICLAW_SANDBOX: "on" } }, ws)).toEqual({ mode: "off", network: "deny" });
    expect(await sandboxOf(parseCliArgs(["run", "x"]), { env: {} }, await workspaceWith())).toBeUndefined();
  });

  it("refuses a bad flag or file with one line", async () => {
    expect(() => parseCliArgs(["run", "--sandbox", "maybe", "x"])).toThrow("--sandbox must be one of: on, auto, off");
    const ws = await workspaceWith({ sandbox: "sometimes" });
    await expect(sandboxOf(parseCliArgs(["run", "x"]), { env: {} }, ws)).rejects.toThrow(`${join(ws, "settings.json")}: sandbox: must be off, on or auto, or { "mode": ..., "network": "allow" | "deny" }`);
  });

  it("says in one line that commands run unsandboxed where bubblewrap is missing, and the turn goes on", async () => {
    const model = await scripted([{ reply: "hello" }]);
    const ws = await workspaceWith();
    const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x", PATH: "/nowhere" });
    const run = await runMain(["run", "--workspace", ws, "hi"], { env, cwd: ws });
    expect(run.stdout).toBe("hello\n");
    expect(run.stderr).toMatch(/^warning: commands run unsandboxed: bubblewrap \(bwrap\) is not installed$/m);
    const off = await runMain(["run", "--workspace", ws, "--sandbox", "off", "hi"], { env, cwd: ws });
    expect(off.stderr).not.toMatch(/unsandboxed/);
  });
});
