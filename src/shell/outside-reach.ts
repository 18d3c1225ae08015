// Whether a command plainly needs what a confined sandbox withholds, the network or a write outside the working folder: then auto still asks.
import { isAbsolute, resolve, sep } from "node:path";
import type { CommandPlace } from "../gate/context.js";
import { parsePlainCommand } from "./plain-command.js";
import { parseShellSync, type ParsedShell } from "./shell-parse.js";

/** Programs whose work is the network, another host, or another user. */
const NETWORK_PROGRAMS = new Set([
  ...["curl", "wget", "ssh", "scp", "sftp", "rsync", "ftp", "nc", "ncat", "netcat", "telnet", "socat", "ping", "dig", "nslookup", "host", "whois"],
  ...["gh", "glab", "aws", "gcloud", "gsutil", "az", "kubectl", "helm", "docker", "podman", "terraform", "pulumi", "heroku", "vercel", "netlify", "flyctl"],
  ...["apt", "apt-get", "brew", "dnf", "yum", "pacman", "snap", "sudo", "su", "doas"],
]);

/** Subcommands that fetch or publish, by program. */
const NETWORK_SUBCOMMANDS: Record<string, readonly string[]> = {
  git: ["clone", "fetch", "pull", "push", "ls-remote", "submodule"],
  npm: ["install", "i", "ci", "add", "publish", "update", "upgrade", "outdated", "view", "info", "audit", "login", "exec", "create", "init"],
  yarn: ["add", "install", "upgrade", "publish", "dlx", "create"],
  pnpm: ["add", "install", "i", "update", "publish", "dlx", "create", "fetch"],
  bun: ["add", "install", "i", "update", "publish", "x", "create"],
  pip: ["install", "download"],
  pip3: ["install", "download"],
  uv: ["pip", "add", "sync", "lock", "tool"],
  poetry: ["install", "add", "update", "publish", "lock"],
  gem: ["install", "push", "fetch", "update"],
  bundle: ["install", "update", "add"],
  cargo: ["install", "publish", "fetch", "update", "search", "add"],
  go: ["get", "install"],
  composer: ["install", "update", "require"],
  deno: ["install"],
};

/** Folders a command may name as a write target without leaving its place: the working folder, devices that discard. */
const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);

/**
 * Why a command the judge cannot prove read-only plainly needs the network or writes outside the
 * working folder, or null: a network program or subcommand (`curl`, `git push`, `npm install`), a
 * global install, or an output redirection to a path elsewhere. A command that needs more than it
 * shows still cannot have it in the confined sandbox: it fails there, and says so.
 */
export function outsideReach(command: string, place: CommandPlace): string | null {
  const parsed: ParsedShell | undefined = parseShellSync(command) ?? parsePlainCommand(command);
  if (parsed === undefined) return "the gate could not read it";
  for (const simple of parsed.commands) {
    const [program, ...args] = simple.argv.map((word) => word.value);
    const name = program?.slice(program.lastIndexOf("/") + 1) ?? "";
    if (NETWORK_PROGRAMS.has(name)) return `${name} reaches the network or another user`;
    const sub = args.find((arg) => !arg.startsWith("-"));
    if (sub !== undefined && NETWORK_SUBCOMMANDS[name]?.includes(sub)) return `${name} ${sub} reaches the network`;
    if (args.includes("-g") || args.includes("--global")) return `${name} ${args.join(" ")} installs outside the working folder`;
    // A package named with a version, or a project generator, is downloaded first.
    if (/^(npx|pnpx|bunx)$/.test(name) && sub !== undefined && (/.@/.test(sub) || /^create-/.test(sub))) return `${name} ${sub} downloads a package`;
    for (const redirect of simple.redirects) {
      const target = redirect.target?.value;
      if (target === undefined || !/>/.test(redirect.op) || HARMLESS_TARGETS.has(target)) continue;
      if (target.startsWith("~") || (isAbsolute(target) && !isInside(resolve(target), place.cwd))) return `it writes ${target}, outside the working folder`;
    }
  }
  return null;
}

function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}
