// The sandbox tests' world: a fake home, a project and a TMPDIR outside /tmp (which the sandbox makes private), and a command runner.
import { spawn } from "node:child_process";
import { mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { probeBwrap, type BwrapProbe } from "../../../src/shell/sandbox/bwrap-probe.js";
import { planCommand, spawnPlanned, type CommandPlan } from "../../../src/shell/sandbox/sandbox-command.js";
import { policyFor, type PolicyPlace, type SandboxKind, type SandboxPolicy } from "../../../src/shell/sandbox/sandbox-policy.js";
import { tempDirSync } from "../../helpers/temp-dir.js";

/** The probe of this machine, as the suite's one bwrap check. With MINICLAW_REQUIRE_SANDBOX=1 (CI sets it) the skip becomes a failure. */
export const probe: BwrapProbe = await probeBwrap({ pathEnv: process.env["PATH"], spawn });
if (!probe.available && process.env["MINICLAW_REQUIRE_SANDBOX"] === "1") throw new Error(`MINICLAW_REQUIRE_SANDBOX=1 but ${probe.reason}`);

/** Why the sandbox tests are skipped here, for the one line that says so. */
export const skipReason = probe.available ? "" : ` (skipped: ${probe.reason}; install bubblewrap to run them)`;

/** The folders of one test world, all real paths under /var/tmp. */
export interface World {
  base: string;
  home: string;
  cwd: string;
  tmpdir: string;
}

/**
 * A fresh world: a home holding `.ssh/id_rsa`, `.netrc` and `.aws/credentials`, a project with a `.env`,
 * and a TMPDIR. Under /var/tmp, not /tmp: the sandbox replaces /tmp, which would hide the home whatever the masks did.
 */
export function makeWorld(): World {
  const base = realpathSync(tempDirSync("miniclaw-sandbox-test-", "/var/tmp"));
  const world = { base, home: join(base, "home"), cwd: join(base, "project"), tmpdir: join(base, "tmp") };
  for (const dir of [join(world.home, ".ssh"), join(world.home, ".aws"), world.cwd, world.tmpdir]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(world.home, ".ssh", "id_rsa"), "PRIVATE-KEY\n");
  writeFileSync(join(world.home, ".netrc"), "machine example.com password NETRC-SECRET\n");
  writeFileSync(join(world.home, ".aws", "credentials"), "aws_secret_access_key = AWS-SECRET\n");
  writeFileSync(join(world.cwd, ".env"), "API_KEY=ENV-SECRET\n");
  writeFileSync(join(world.home, "notes.txt"), "not a secret\n");
  return world;
}

/** Removes a world. */
export function removeWorld(world: World): void {
  rmSync(world.base, { recursive: true, force: true });
}

/** The standard policy of `kind` in `world`, with the project's `.env` as its secret. */
export function worldPolicy(world: World, kind: SandboxKind, place: Partial<PolicyPlace> = {}): SandboxPolicy {
  return policyFor(kind, { cwd: world.cwd, tmpdir: world.tmpdir, home: world.home, setting: "on", network: true, projectSecrets: [join(world.cwd, ".env")], ...place });
}

/** One finished command and the plan it ran under. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  plan: CommandPlan;
}

/** Runs `command` under `policy` (or plain bash for null) to its end, with `env` as its whole environment. */
export function runIn(policy: SandboxPolicy | null, command: string, env: Record<string, string> = { PATH: process.env["PATH"] ?? "/usr/bin:/bin" }): Promise<Ran> {
  const plan = planCommand(command, policy, probe);
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    const child = spawnPlanned(spawn, plan, { cwd: policy?.cwd ?? process.cwd(), env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr, plan }));
  });
}

/** A script that runs each step and prints `name=0` when it succeeded, `name=1` when it failed: one bwrap run, many questions. */
export function steps(lines: Record<string, string>): string {
  return Object.entries(lines).map(([name, command]) => `( ${command} ) >/dev/null 2>&1 && echo "${name}=0" || echo "${name}=1"`).join("\n");
}

/** Parses what `steps` printed into name → 0 (succeeded) or 1 (failed). */
export function codes(stdout: string): Record<string, number> {
  return Object.fromEntries(stdout.split("\n").flatMap((line) => {
    const match = /^([\w-]+)=(\d+)$/.exec(line);
    return match === null ? [] : [[match[1] as string, Number(match[2])]];
  }));
}
