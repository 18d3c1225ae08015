// The command judge the gate is handed: the raw-word guard, the parsed verdict, the disk pass for a verdict of safe; and, under
// `auto`, whether a command plainly needs what a confined sandbox withholds (the network, a write outside the working folder).
import { messageOf, orFallback } from "../errors.js";
import { broadPatternReason, normalizeCommand } from "../gate/approval-entries.js";
import type { CommandJudge, CommandPlace, CommandVerdict } from "../gate/context.js";
import { isInside, resolveRealPath } from "../gate/path-check.js";
import { NETWORK_PROGRAMS } from "./command-families.js";
import type { CommandSandbox } from "./sandbox/sandbox-command.js";
import { diskReasons } from "./disk-check.js";
import { resolveWord } from "./word-reads.js";
import { processSecretsReason } from "./process-secrets.js";
import { assessCommand, type SafetyAssessment, type SafetyVerdict } from "./safety.js";
import { parseShellSync } from "./shell-parse.js";

const KINDS: Record<SafetyVerdict, CommandVerdict["kind"]> = { safe: "safe", approved: "approved", denied: "denied", needs_approval: "needs" };

/**
 * The judge of shell commands: a word reaching a process's environment is never allowed; then the pure verdict, made only stricter by the
 * disk pass; under a working `auto` sandbox, `contained` instead of asking unless plainly needing more. "Always" saves the command as
 * written, unless it is too broad to be an entry.
 */
export function createCommandJudge(sandbox?: CommandSandbox): CommandJudge {
  return {
    async judge(command, approvals, place) {
      const entry = normalizeCommand(command);
      const always = broadPatternReason(entry) === null ? { alwaysSaves: entry } : {};
      const never = processSecretsReason(command, place);
      if (never) return { kind: "never", reasons: [never] };
      const cwd = orFallback(() => resolveRealPath(place.cwd), place.cwd);
      const assessed = await assessCommand(command, approvals, place);
      const failed = (error: unknown): string[] => [`the gate could not check the files it reads (${messageOf(error)})`];
      const disk = assessed.plan === undefined ? [] : await diskReasons(assessed.plan, { cwd, home: place.home }).catch(failed);
      const { verdict, reasons }: SafetyAssessment = disk.length === 0 ? assessed : { verdict: assessed.allowed?.() === true ? "approved" : "needs_approval", reasons: disk };
      const kind = KINDS[verdict];
      const contained = kind === "needs" && (await sandbox?.confines()) === true && outsideReach(command, { ...place, cwd }) === null;
      return { kind: contained ? "contained" : kind, reasons, ...always };
    },
  };
}

/** Programs whose work is the network, another host, or another user. */
const OUTSIDE_PROGRAMS = new Set([...NETWORK_PROGRAMS, "apt", "apt-get", "brew", "dnf", "yum", "pacman", "snap", "sudo", "su", "doas"]);

const NETWORK_SUBCOMMANDS: Record<string, readonly string[]> = {
  git: ["clone", "fetch", "pull", "push", "ls-remote", "submodule"],
  npm: ["install", "i", "ci", "add", "publish", "update", "upgrade", "outdated", "view", "info", "audit", "login", "exec", "create", "init"],
  yarn: ["add", "install", "upgrade", "publish", "dlx", "create"], pnpm: ["add", "install", "i", "update", "publish", "dlx", "create", "fetch"],
  bun: ["add", "install", "i", "update", "publish", "x", "create"], pip: ["install", "download"], pip3: ["install", "download"],
  uv: ["pip", "add", "sync", "lock", "tool"], poetry: ["install", "add", "update", "publish", "lock"], gem: ["install", "push", "fetch", "update"],
  bundle: ["install", "update", "add"], cargo: ["install", "publish", "fetch", "update", "search", "add"], go: ["get", "install"],
  composer: ["install", "update", "require"], deno: ["install"],
};

const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);

/**
 * Why a command plainly needs the network or writes outside the working folder (a network program or subcommand, a global install, a
 * redirection elsewhere), or null. What it needs without showing it, the confined sandbox still withholds.
 */
function outsideReach(command: string, place: CommandPlace): string | null {
  const parsed = parseShellSync(command);
  if (parsed === undefined) return "the gate could not read it";
  for (const simple of parsed.commands) {
    const [program, ...args] = simple.argv.map((word) => word.value);
    const name = program?.slice(program.lastIndexOf("/") + 1) ?? "";
    if (OUTSIDE_PROGRAMS.has(name)) return `${name} reaches the network or another user`;
    const sub = args.find((arg) => !arg.startsWith("-"));
    if (sub !== undefined && NETWORK_SUBCOMMANDS[name]?.includes(sub)) return `${name} ${sub} reaches the network`;
    if (args.includes("-g") || args.includes("--global")) return `${name} ${args.join(" ")} installs outside the working folder`;
    // A package named with a version, or a project generator, is downloaded first.
    if (/^(npx|pnpx|bunx)$/.test(name) && sub !== undefined && (/.@/.test(sub) || /^create-/.test(sub))) return `${name} ${sub} downloads a package`;
    for (const redirect of simple.redirects) {
      const target = redirect.target?.value;
      if (target === undefined || !/>/.test(redirect.op) || HARMLESS_TARGETS.has(target)) continue;
      if (target.startsWith("~") || resolveWord(target, [place.cwd], place.home).some((path) => !isInside(path, place.cwd))) return `it writes ${target}, outside the working folder`;
    }
  }
  return null;
}
