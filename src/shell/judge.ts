// The command judge the gate is handed: the raw-word guard, the parsed verdict, then the disk pass for a verdict of safe.
import { broadPatternReason, normalizeCommand } from "../gate/approval-entries.js";
import type { CommandJudge, CommandVerdict } from "../gate/context.js";
import { resolveRealPath } from "../gate/path-check.js";
import type { CommandSandbox } from "./command-sandbox.js";
import { diskReasons } from "./disk-check.js";
import { outsideReach } from "./outside-reach.js";
import { processSecretsReason } from "./process-secrets.js";
import { assessCommand, type SafetyAssessment, type SafetyVerdict } from "./safety.js";

const KINDS: Record<SafetyVerdict, CommandVerdict["kind"]> = { safe: "safe", approved: "approved", denied: "denied", needs_approval: "needs" };

/**
 * The judge of shell commands: a word reaching a process's environment is never allowed; then the pure verdict, made only stricter by the
 * disk pass; under a working `auto` sandbox, `contained` instead of asking unless plainly needing more. "Always" saves the command as written.
 */
export function createCommandJudge(sandbox?: CommandSandbox): CommandJudge {
  return {
    async judge(command, approvals, place) {
      const entry = normalizeCommand(command);
      const always = broadPatternReason(entry) === null ? { alwaysSaves: entry } : {};
      const never = processSecretsReason(command, place);
      if (never) return { kind: "never", reasons: [never] };
      const cwd = realOrSame(place.cwd);
      const assessed = await assessCommand(command, approvals, place);
      const disk = assessed.plan === undefined ? [] : await diskReasons(assessed.plan, { cwd, home: place.home }).catch(diskFailed);
      const { verdict, reasons }: SafetyAssessment = disk.length === 0 ? assessed : { verdict: assessed.allowed?.() === true ? "approved" : "needs_approval", reasons: disk };
      const kind = KINDS[verdict];
      const contained = kind === "needs" && (await sandbox?.confines()) === true && outsideReach(command, { ...place, cwd }) === null;
      return { kind: contained ? "contained" : kind, reasons, ...always };
    },
  };
}

function realOrSame(path: string): string {
  try {
    return resolveRealPath(path);
  } catch {
    return path;
  }
}

function diskFailed(error: unknown): string[] {
  return [`the gate could not check the files it reads (${error instanceof Error ? error.message : String(error)})`];
}
