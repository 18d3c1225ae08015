// The sandbox's auto against everyday development commands: how many still ask, and that what runs unasked stays in the working folder.
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createCommandJudge } from "../../src/shell/judge.js";
import { CommandSandbox, spawnPlanned } from "../../src/shell/sandbox/sandbox-command.js";
import { decide } from "../../src/gate/policy.js";
import { DEV_COMMANDS } from "./fixtures/dev-commands.js";
import { probe, skipReason } from "./sandbox/sandbox-harness.js";
import { tempDirSync } from "../helpers/temp-dir.js";

/** The goal for commands that need no network: at most this share asked in auto. */
const MAX_ASKED_IN_AUTO = 0.1;

const project = realpathSync(tempDirSync("miniclaw-auto-", realpathSync("/var/tmp")));
const place = { cwd: project, home: join(project, "home") };

/** The default mode's answer for each command: ask, or run unasked (safe or contained). */
async function asked(setting: "on" | "auto"): Promise<Map<string, boolean>> {
  const judge = createCommandJudge(new CommandSandbox(setting));
  const out = new Map<string, boolean>();
  for (const { command } of DEV_COMMANDS) out.set(command, decide({ ...(await judge.judge(command, {}, place)), readOnly: false }, "default") === "ask");
  return out;
}

describe.skipIf(!probe.available)(`the sandbox's auto over ${DEV_COMMANDS.length} everyday development commands${skipReason}`, () => {
  it("asks about few that need no network, and about every one that does", async () => {
    const [on, auto] = [await asked("on"), await asked("auto")];
    const offline = DEV_COMMANDS.filter((c) => !c.network);
    const rate = (answers: Map<string, boolean>, list: typeof DEV_COMMANDS) => list.filter((c) => answers.get(c.command)).length / list.length;
    console.log(`development corpus: ${DEV_COMMANDS.length} commands (${offline.length} offline); asked with the sandbox on ${(100 * rate(on, DEV_COMMANDS)).toFixed(1)}%, in auto ${(100 * rate(auto, DEV_COMMANDS)).toFixed(1)}% (offline ones ${(100 * rate(auto, offline)).toFixed(1)}%)`);
    expect(DEV_COMMANDS.length).toBeGreaterThanOrEqual(100);
    expect(rate(auto, offline)).toBeLessThanOrEqual(MAX_ASKED_IN_AUTO);
    expect(DEV_COMMANDS.filter((c) => c.network && !auto.get(c.command)).map((c) => c.command)).toEqual([]);
  });

  it("runs what auto lets through confined: writes outside the working folder fail, inside they land", async () => {
    const sandbox = new CommandSandbox("auto");
    const outside = tempDirSync("miniclaw-outside-", realpathSync("/var/tmp"));
    const tmpdir = join(project, ".tmp");
    mkdirSync(tmpdir, { recursive: true });
    writeFileSync(join(project, "a.txt"), "a\n");
    const script = `touch made.txt; cp a.txt ${outside}/copied.txt; echo x > ${outside}/x.txt; mkdir ${outside}/d; rm -rf ${outside}; true`;
    const plan = await sandbox.plan(script, "confined", { cwd: project, workspace: join(project, "ws"), tmpdir, home: place.home });
    expect(plan.sandboxed).toBe(true);
    const child = spawnPlanned(spawn, plan, { cwd: project, stdio: "ignore" });
    await new Promise((resolve) => child.on("close", resolve));
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(project)).toContain("made.txt");
  });

  it("hides the project's secret files from commands that run unasked, and not from approved ones", async () => {
    writeFileSync(join(project, ".env"), "API_KEY=in-the-env-file\n");
    const tmpdir = join(project, ".tmp");
    mkdirSync(tmpdir, { recursive: true });
    const sandbox = new CommandSandbox("auto");
    const read = async (kind: "read-only" | "confined" | "approved"): Promise<string> => {
      const plan = await sandbox.plan("cat .env", kind, { cwd: project, workspace: join(project, "ws"), tmpdir, home: place.home });
      const child = spawnPlanned(spawn, plan, { cwd: project, stdio: ["ignore", "pipe", "ignore"] });
      let out = "";
      child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
      await new Promise((resolve) => child.on("close", resolve));
      return out;
    };
    expect([await read("read-only"), await read("confined"), await read("approved")]).toEqual(["", "", "API_KEY=in-the-env-file\n"]);
  });
});
