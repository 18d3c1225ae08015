// Whether this machine's sed and awk have a sandbox mode (no programs, no file writes or reads by name): probed once.
import { spawnSync } from "node:child_process";

/** What the read-only sandbox can rely on. */
export interface SandboxSupport {
  /** GNU sed 4.3+: `--sandbox` refuses the e, w, r, W and R commands. */
  sed: boolean;
  /** gawk: `--sandbox` refuses system(), redirections, getline from files and extensions. */
  awk: boolean;
}

let probed: SandboxSupport | undefined;

/**
 * Probes `sed --sandbox` and `awk --sandbox` once per process (two short synchronous
 * runs, a few milliseconds) and remembers the answer. Where a sandbox is missing, the
 * gate asks before running that program: its script language is not judged by parsing alone.
 */
export function sandboxSupport(): SandboxSupport {
  probed ??= { sed: accepts("sed", ["--sandbox", "-n", "p"]), awk: accepts("awk", ["--sandbox", "BEGIN { }"]) };
  return probed;
}

/** The probe's answer if it has run in this process (the gate runs it when it judges sed or awk), without running it. */
export function probedSandboxSupport(): SandboxSupport | undefined {
  return probed;
}

function accepts(program: string, args: string[]): boolean {
  try {
    const result = spawnSync(program, args, { input: "", stdio: ["pipe", "ignore", "ignore"], timeout: 5_000 });
    return result.status === 0;
  } catch {
    return false;
  }
}
