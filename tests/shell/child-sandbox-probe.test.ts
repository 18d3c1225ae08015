// The sed/awk sandbox probe runs when the gate judges sed or awk or a command names them; other read-only children get refusing functions.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { sandboxEnv, sandboxSupport, sandboxSupportFor } from "../../src/shell/child-sandbox.js";
import { runModuleScript, sourceUrl } from "../helpers/module-script.js";

describe("the sandbox support a read-only child gets", () => {
  it("in a new process: refusing for a command that never names sed or awk (no probe run), the machine's once one does", () => {
    const child = sourceUrl("src/shell/child-sandbox.ts");
    const script = `
      const { probedSandboxSupport, sandboxSupportFor } = await import(${JSON.stringify(child)});
      const out = [sandboxSupportFor("echo hi"), probedSandboxSupport() ?? null, sandboxSupportFor("sed -n 1p notes.txt"), probedSandboxSupport() ?? null];
      console.log(JSON.stringify(out));`;
    const run = runModuleScript(script);
    expect(run.stderr).toBe("");
    const machine = sandboxSupport();
    expect(JSON.parse(run.stdout)).toEqual([{ sed: false, awk: false }, null, machine, machine]);
  });

  it("makes sed refuse to run in a child whose command never named it, before any probe", () => {
    const env = sandboxEnv({ PATH: process.env["PATH"] }, true, { sed: false, awk: false });
    const run = spawnSync("bash", ["-c", "printf 'a\\n' | sed -n p; echo status=$?"], { env: env as NodeJS.ProcessEnv, encoding: "utf8" });
    expect(run.stdout).toBe("status=126\n");
    expect(run.stderr).toMatch(/sed runs unasked only in its --sandbox mode/);
  });

  it("runs a sed the gate judged however it is spelled (s\\ed) in its sandbox, once the gate's judging has probed", () => {
    const child = sourceUrl("src/shell/child-sandbox.ts");
    const safety = sourceUrl("src/shell/safety.ts");
    const script = `
      const { sandboxSupportFor } = await import(${JSON.stringify(child)});
      const { assessCommand } = await import(${JSON.stringify(safety)});
      const before = sandboxSupportFor("s\\\\ed -n p");
      await assessCommand("s\\\\ed -n 1p notes.txt", { allowed: [], denied: [] }, { cwd: process.cwd(), roots: [process.cwd()] });
      console.log(JSON.stringify([before, sandboxSupportFor("s\\\\ed -n p")]));`;
    const run = runModuleScript(script);
    expect(run.stderr).toBe("");
    const machine = sandboxSupport();
    const [before, after] = JSON.parse(run.stdout) as [unknown, typeof machine];
    expect([before, after]).toEqual([{ sed: false, awk: false }, machine]);
    const env = sandboxEnv({ PATH: process.env["PATH"] }, true, after);
    const sed = spawnSync("bash", ["-c", "printf 'a\\n' | s\\ed -n p; echo status=$?"], { env: env as NodeJS.ProcessEnv, encoding: "utf8" });
    expect(sed.stdout).toBe(machine.sed ? "a\nstatus=0\n" : "status=126\n");
  });
});
