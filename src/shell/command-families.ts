// Families of programs that are never safe, so a refusal can say why in words (the allow table alone already refuses them).

/** Family → the programs in it. The first family listing a program names its reason. */
const FAMILIES: ReadonlyArray<readonly [reason: string, programs: readonly string[]]> = [
  [
    "can print secrets from the environment",
    ["printenv", "env", "set", "export", "declare", "typeset", "compgen"],
  ],
  [
    "runs another command (a wrapper)",
    [
      "eval", "exec", "source", ".", "sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "xargs", "sudo", "doas", "su", "runuser",
      "nohup", "timeout", "nice", "ionice", "command", "builtin", "time", "stdbuf", "setsid", "chroot", "watch", "strace", "ltrace",
      "script", "parallel", "flock", "unbuffer", "coproc", "trap", "busybox",
    ],
  ],
  [
    "runs code (an interpreter or build tool)",
    [
      "node", "nodejs", "python", "python2", "python3", "perl", "ruby", "php", "lua", "deno", "bun", "npx", "npm", "pnpm", "yarn", "tsx",
      "ts-node", "awk", "gawk", "mawk", "nawk", "java", "go", "cargo", "rustc", "make", "cmake", "gcc", "cc", "clang", "osascript",
      "pwsh", "powershell", "Rscript", "julia", "swift", "vim", "vi", "nvim", "emacs", "nano", "less", "more", "man",
    ],
  ],
  [
    "uses the network",
    [
      "curl", "wget", "nc", "ncat", "netcat", "ssh", "scp", "sftp", "rsync", "ftp", "telnet", "socat", "ping", "dig", "nslookup", "host",
      "http", "https", "aria2c", "gh", "docker", "kubectl",
    ],
  ],
  [
    "writes, moves or deletes files",
    [
      "cp", "mv", "rm", "rmdir", "tee", "dd", "chmod", "chown", "chgrp", "touch", "mkdir", "ln", "install", "truncate", "shred", "mkfifo",
      "mknod", "unlink", "patch", "tar", "zip", "unzip", "gzip", "gunzip", "bzip2", "xz", "split", "csplit", "rename", "mktemp",
    ],
  ],
  ["may never end", ["yes", "top", "htop", "sleep", "wait", "read"]],
  [
    "changes the system or other processes",
    [
      "kill", "pkill", "killall", "shutdown", "reboot", "systemctl", "service", "mount", "umount", "crontab", "useradd", "passwd",
      "apt", "apt-get", "brew", "pip", "pip3", "ulimit", "umask", "alias", "unalias", "shopt", "hash", "hostname",
    ],
  ],
];

const REASON_BY_PROGRAM: ReadonlyMap<string, string> = new Map(
  FAMILIES.flatMap(([reason, programs]) => programs.map((program) => [program, reason] as const)).reverse(),
);

/** Why `program` is never safe, in a few words; a generic sentence for programs in no family. */
export function familyReason(program: string): string {
  const reason = REASON_BY_PROGRAM.get(program);
  if (reason !== undefined) return `${program} ${reason}`;
  if (program.includes("/")) return `${program} is a program given by path, which the gate cannot vouch for`;
  return `${program} is not on the read-only list`;
}
