// Programs that are never safe, by family so a refusal says why; and the toolchains among them whose version query is.
import type { ProgramRule } from "./program-rules.js";
import type { ShellWord } from "./shell-words.js";

/** Programs whose work is the network or another host (also what `auto` never confines). */
export const NETWORK_PROGRAMS: readonly string[] = (
  "curl wget nc ncat netcat ssh scp sftp rsync ftp telnet socat ping dig nslookup host whois http https aria2c gh glab aws gcloud gsutil az " +
  "kubectl helm docker podman terraform pulumi heroku vercel netlify flyctl"
).split(" ");

/** Family → its programs, space-separated; the first family listing a program names its reason. Programs of the read-only table are left out. */
const FAMILIES: ReadonlyArray<readonly [reason: string, programs: string]> = [
  ["can print secrets from the environment", "printenv env set export declare typeset compgen"],
  [
    "runs another command (a wrapper)",
    "eval exec source . sh bash zsh dash ksh fish csh tcsh xargs sudo doas su runuser nohup timeout nice ionice command builtin time stdbuf setsid " +
      "chroot watch strace ltrace script parallel flock unbuffer coproc trap busybox",
  ],
  [
    "runs code (an interpreter or build tool)",
    "node nodejs python python2 python3 perl ruby php lua deno bun npx npm pnpm yarn tsx ts-node mawk nawk java go cargo rustc make cmake gcc cc " +
      "clang osascript pwsh powershell Rscript julia swift vim vi nvim emacs nano less more man",
  ],
  ["uses the network", NETWORK_PROGRAMS.join(" ")],
  ["writes, moves or deletes files", "cp mv rm rmdir tee dd chmod chown chgrp touch mkdir ln install truncate shred mkfifo mknod unlink patch zip split csplit rename mktemp"],
  ["may never end", "yes top htop sleep wait read"],
  [
    "changes the system or other processes",
    "kill pkill killall shutdown reboot systemctl service mount umount crontab useradd passwd apt apt-get brew pip pip3 ulimit umask alias unalias shopt hash",
  ],
];

const REASON_BY_PROGRAM: ReadonlyMap<string, string> = new Map(
  FAMILIES.flatMap(([reason, programs]) => programs.split(" ").map((program) => [program, reason] as const)).reverse(),
);

/** Why `program` is never safe, in a few words; a generic sentence for programs in no family. */
export function familyReason(program: string): string {
  const reason = REASON_BY_PROGRAM.get(program);
  if (reason !== undefined) return `${program} ${reason}`;
  if (program.includes("/")) return `${program} is a program given by path, which the gate cannot vouch for`;
  return `${program} is not on the read-only list`;
}

/**
 * Program → the arguments that only print its version. Not go, rustc, cargo, yarn, pnpm (a project file can make them fetch and run
 * another toolchain), nor `ruby -v` and `php -v` (they then run stdin).
 */
const VERSION_FLAGS: ReadonlyArray<readonly [programs: readonly string[], flags: readonly string[]]> = [
  [["python", "python3"], ["--version", "-V"]],
  [["java", "javac"], ["-version", "--version"]],
  [["gcc", "g++", "cc", "c++", "clang", "clang++"], ["--version"]],
  [["make", "cmake", "ninja"], ["--version"]],
  [["perl"], ["--version", "-v"]],
  [["node"], ["--version", "-v"]],
  [["ruby", "deno", "bun", "docker", "bash"], ["--version"]],
];

/** The version query is safe, anything else keeps its family's reason. */
export const VERSION_RULES: ReadonlyArray<readonly [string, ProgramRule]> = VERSION_FLAGS.flatMap(([programs, flags]) =>
  programs.map((program): readonly [string, ProgramRule] => [program, { check: (_args, words) => versionReason(program, flags, words) }]),
);

function versionReason(program: string, flags: readonly string[], words: readonly ShellWord[]): string | null {
  const only = words.length === 1 ? words[0] : undefined;
  if (only !== undefined && !only.glob && only.dynamic !== true && flags.includes(only.value)) return null;
  return `${familyReason(program)}; only \`${program} ${flags[0] ?? "--version"}\` is read-only`;
}
