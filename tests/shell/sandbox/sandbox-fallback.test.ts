// Where bubblewrap is missing or cannot build a sandbox: one line saying so, and commands run as they did before the sandbox.
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { findOnPath, probeBwrap, unsandboxedNotice } from "../../../src/shell/sandbox/bwrap-probe.js";
import { planCommand, spawnPlanned } from "../../../src/shell/sandbox/sandbox-command.js";
import { policyFor } from "../../../src/shell/sandbox/sandbox-policy.js";
import { tempDirSync } from "../../helpers/temp-dir.js";

const dir = tempDirSync("miniclaw-sandbox-fallback-");
/** A PATH with bash and without bwrap (which usually shares bash's folder): a folder holding only a bash that runs the real one. */
const hiddenPath = dir;
writeFileSync(join(dir, "bash"), `#!/bin/sh\nexec ${findOnPath("bash", process.env["PATH"])} "$@"\n`, { mode: 0o755 });

/** Runs a plan to its end with the hidden PATH; resolves to its stdout. */
function output(plan: ReturnType<typeof planCommand>): Promise<string> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    const child = spawnPlanned(spawn, plan, { cwd: dir, env: { PATH: hiddenPath }, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.once("error", reject);
    child.once("close", () => resolve(stdout));
  });
}

describe("the sandbox where bubblewrap does not work", () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const policy = policyFor("read-only", { cwd: dir, tmpdir: dir, home: dir, setting: "on", network: false });

  it("says in one line that commands run unsandboxed when bwrap is not on PATH, and runs them with plain bash", async () => {
    const probe = await probeBwrap({ pathEnv: hiddenPath, spawn });
    expect(probe).toEqual({ available: false, reason: "bubblewrap (bwrap) is not installed" });
    expect(unsandboxedNotice(probe)).toBe("commands run unsandboxed: bubblewrap (bwrap) is not installed");
    const plan = planCommand("echo hi", policy, probe);
    expect(plan).toEqual({ sandboxed: false, file: "bash", args: ["-c", "echo hi"], notice: "commands run unsandboxed: bubblewrap (bwrap) is not installed" });
    expect(await output(plan)).toBe("hi\n");
  });

  it("names disabled user namespaces as the reason when bwrap is there but cannot make one", async () => {
    const bin = mkdtempSync(join(dir, "bin-"));
    writeFileSync(join(bin, "bwrap"), "#!/bin/sh\necho 'bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n");
    chmodSync(join(bin, "bwrap"), 0o755);
    const probe = await probeBwrap({ pathEnv: bin, spawn });
    expect(probe).toEqual({
      available: false,
      reason: "user namespaces are disabled: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.",
    });
  });

  it("probes once per PATH, and runs an older bwrap without --disable-userns", async () => {
    const bin = mkdtempSync(join(dir, "old-"));
    writeFileSync(join(bin, "bwrap"), `#!/bin/sh\ncase "$*" in *--disable-userns*) echo 'bwrap: Unknown option --disable-userns' >&2; exit 1;; esac\nexit 0\n`, { mode: 0o755 });
    const counted = vi.fn(spawn) as unknown as typeof spawn;
    const first = await probeBwrap({ pathEnv: bin, spawn: counted });
    expect(await probeBwrap({ pathEnv: bin, spawn: counted })).toBe(first);
    expect(first).toEqual({ available: true, path: join(bin, "bwrap"), disableUserns: false });
    expect(counted).toHaveBeenCalledTimes(2);
  });

  it("runs unsandboxed without a word when the setting is off", async () => {
    const probe = await probeBwrap({ pathEnv: hiddenPath, spawn });
    expect(planCommand("echo hi", null, probe)).toEqual({ sandboxed: false, file: "bash", args: ["-c", "echo hi"], notice: null });
  });
});
