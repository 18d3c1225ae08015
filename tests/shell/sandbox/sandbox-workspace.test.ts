// The workspace under real bubblewrap: read-only to every command wherever it lies, and a command's start never racing the
// files miniclaw replaces in it (the approvals file, cron state) by rename.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configurationPaths } from "../../../src/gate/path-check.js";
import { CommandSandbox } from "../../../src/shell/sandbox/sandbox-command.js";
import { createRunCommandTool } from "../../../src/shell/run-command.js";
import { buildToolContext } from "../../helpers/tool-context.js";
import { gatedRun } from "../../tools/gated-run.js";
import { codes, makeWorld, probe, removeWorld, runIn, skipReason, steps, worldPolicy, type World } from "./sandbox-harness.js";

describe.skipIf(!probe.available)(`the workspace in the sandbox${skipReason}`, () => {
  let world: World;
  beforeAll(() => {
    world = makeWorld();
  });
  afterAll(() => removeWorld(world));

  /** A workspace at `dir` with an approvals file, a session and a memory note. */
  const workspaceAt = (dir: string): string => {
    for (const sub of ["sessions", "memory", "agents/main"]) mkdirSync(join(dir, sub), { recursive: true });
    writeFileSync(join(dir, "exec-approvals.json"), '{"allowed":[],"denied":[]}\n');
    writeFileSync(join(dir, "sessions", "s.jsonl"), "{}\n");
    return dir;
  };
  const attempts = (ws: string) =>
    steps({
      approvals: `echo '{"allowed":["rm -rf /"]}' > ${ws}/exec-approvals.json`, session: `echo x >> ${ws}/sessions/s.jsonl`,
      note: `echo ignore-all > ${ws}/memory/evil.md`, soul: `echo x > ${ws}/agents/main/SOUL.md`, swap: `mv ${ws} ${ws}-aside`, project: "echo ok > built.txt",
    });

  it("is read-only to approved and confined commands inside the working folder, outside it and around it", async () => {
    const inside = workspaceAt(join(world.cwd, "ws"));
    const outside = workspaceAt(join(world.base, "ws-outside"));
    for (const kind of ["approved", "confined"] as const) {
      for (const ws of [inside, outside]) {
        const ran = await runIn(worldPolicy(world, kind, { workspace: ws, configFiles: configurationPaths(ws) }), attempts(ws));
        expect([kind, ws, codes(ran.stdout)]).toEqual([kind, ws, { approvals: 1, session: 1, note: 1, soul: 1, swap: 1, project: 0 }]);
        expect(readFileSync(join(ws, "exec-approvals.json"), "utf8")).toBe('{"allowed":[],"denied":[]}\n');
      }
    }
    // The working folder inside the workspace: the project writable, the rest of the workspace not.
    const around = workspaceAt(join(world.base, "ws-around"));
    const project = join(around, "project");
    mkdirSync(project);
    const ran = await runIn(worldPolicy(world, "approved", { workspace: around, cwd: project, configFiles: configurationPaths(around) }), attempts(around));
    expect(codes(ran.stdout)).toEqual({ approvals: 1, session: 1, note: 1, soul: 1, swap: 1, project: 0 });
  });

  /** Replaces `ws`'s approvals file by rename, write after write, until the returned stop is called. */
  const churn = (ws: string): (() => Promise<void>) => {
    let replacing = true;
    const done = (async () => {
      for (let n = 0; replacing; n++) {
        writeFileSync(join(ws, "exec-approvals.json.tmp"), `{"allowed":["echo ${n}"],"denied":[]}\n`);
        renameSync(join(ws, "exec-approvals.json.tmp"), join(ws, "exec-approvals.json"));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    return async () => {
      replacing = false;
      await done;
    };
  };

  it("starts every command while the approvals file is replaced by rename again and again", async () => {
    const ws = workspaceAt(join(world.base, "ws-churn"));
    const stop = churn(ws);
    const failures: string[] = [];
    for (let i = 0; i < 40; i++) {
      const ran = await runIn(worldPolicy(world, "approved", { workspace: ws, configFiles: configurationPaths(ws) }), "true");
      if (ran.code !== 0) failures.push(ran.stderr.trim());
    }
    await stop();
    expect(failures).toEqual([]);
  });

  it("starts an approved run_command again when bwrap lost the race to a file it mounts over: the workspace as the working folder", async () => {
    const ws = workspaceAt(join(world.base, "ws-cwd"));
    const context = await buildToolContext({ cwd: ws, workspace: ws, approver: async () => "allow_once" });
    const stop = churn(ws);
    const results: string[] = [];
    for (let i = 0; i < 40; i++) results.push((await gatedRun(createRunCommandTool({}, new CommandSandbox("on")), { command: `touch made-${i}` }, context)) as string);
    await stop();
    expect(results.filter((text) => !text.startsWith("exit code: 0"))).toEqual([]);
  });
});
