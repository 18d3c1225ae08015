// Whether this machine's sed and awk have a sandbox mode (no programs, no file writes or reads by name): probed once.
import { spawnSync } from "node:child_process";

/** What the read-only sandbox can rely on: GNU sed 4.3+ and gawk, whose `--sandbox` refuses what runs programs or opens files by name. */
export interface SandboxSupport {
  sed: boolean;
  awk: boolean;
}

let probed: SandboxSupport | undefined;

/** Probes `sed --sandbox` and `awk --sandbox` once per process (two short runs); where one is missing the gate asks for that program. */
export function sandboxSupport(): SandboxSupport {
  probed ??= { sed: accepts("sed", ["--sandbox", "-n", "p"]), awk: accepts("awk", ["--sandbox", "BEGIN { }"]) };
  return probed;
}

/** The probe's answer if it has run in this process, without running it. */
export function probedSandboxSupport(): SandboxSupport | undefined {
  return probed;
}

function accepts(program: string, args: string[]): boolean {
  try {
    return spawnSync(program, args, { input: "", stdio: ["pipe", "ignore", "ignore"], timeout: 5_000 }).status === 0;
  } catch {
    return false;
  }
}
