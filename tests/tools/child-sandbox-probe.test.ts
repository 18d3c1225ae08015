// The sed/awk sandbox probe runs only for a command that names them; any other read-only child gets refusing functions.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { sandboxEnv, sandboxSupportFor } from "../../src/tools/child-sandbox.js";
import { sandboxSupport } from "../../src/permissions/sandbox-probe.js";

describe("the sandbox support a read-only child gets", () => {
  it("is the machine's (probed) for a command naming sed or awk, and refusing for any other", () => {
    expect(sandboxSupportFor("sed -n 1p notes.txt")).toEqual(sandboxSupport());
    expect(sandboxSupportFor("ls | gawk '{print}'")).toEqual(sandboxSupport());
    expect(sandboxSupportFor("echo hi")).toEqual({ sed: false, awk: false });
  });

  it("makes sed refuse to run in a child whose command never named it", () => {
    const env = sandboxEnv({ PATH: process.env["PATH"] }, true, sandboxSupportFor("echo hi"));
    const run = spawnSync("bash", ["-c", "printf 'a\\n' | sed -n p; echo status=$?"], { env: env as NodeJS.ProcessEnv, encoding: "utf8" });
    expect(run.stdout).toBe("status=126\n");
    expect(run.stderr).toMatch(/sed runs unasked only in its --sandbox mode/);
  });
});
