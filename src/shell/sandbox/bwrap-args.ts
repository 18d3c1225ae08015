// A resolved sandbox as bwrap's arguments, followed by `bash -c COMMAND`: pure, so every mount can be read off a list.
import type { ResolvedSandbox } from "./resolve-sandbox.js";

/** What this machine's bwrap can do, from the probe, and where the seccomp program arrives. */
interface BwrapFeatures {
  /** bubblewrap 0.8+: no user namespace can be made inside (one would hand the command every capability again). */
  disableUserns: boolean;
  /** The descriptor bwrap reads the Unix-socket filter from, or null to run without it. */
  seccompFd: number | null;
}

/**
 * Namespaces and process rules. `--cap-drop ALL` matters as root (bwrap would keep every capability inside: `/` could be
 * remounted); `--new-session` takes the terminal away (no TIOCSTI); `--die-with-parent` and the PID namespace end it all.
 */
function processArgs(sandbox: ResolvedSandbox, features: BwrapFeatures): string[] {
  return [
    "--die-with-parent", "--new-session", "--unshare-all", "--unshare-user",
    ...(features.disableUserns ? ["--disable-userns"] : []),
    ...(sandbox.network ? ["--share-net"] : []),
    "--cap-drop", "ALL",
    ...(features.seccompFd === null ? [] : ["--seccomp", String(features.seccompFd)]),
  ];
}

/**
 * The mounts, in order (a later one covers an earlier): the system read-only, a fresh /dev and /proc, the private folders,
 * the working folder seen again, the writable roots, TMPDIR, the pins and read-only paths inside them, last the masks.
 */
function mountArgs(sandbox: ResolvedSandbox): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const dir of sandbox.privateDirs) args.push("--tmpfs", dir);
  for (const dir of sandbox.visible) args.push("--ro-bind", dir, dir);
  for (const dir of sandbox.writable) args.push("--bind", dir, dir);
  args.push("--bind", sandbox.tmpdir, sandbox.tmpdir);
  for (const dir of sandbox.pinned) args.push("--bind", dir, dir);
  for (const path of sandbox.readOnly) args.push("--ro-bind", path, path);
  // /dev/null itself, with its device: reads are empty and writes vanish (a plain bind would be nodev and refuse reads).
  for (const file of sandbox.maskedFiles) args.push("--dev-bind", "/dev/null", file);
  for (const dir of sandbox.maskedDirs) args.push("--tmpfs", dir, "--remount-ro", dir);
  return args;
}

/** bwrap's arguments: process rules, mounts, TMPDIR, the working folder, then `bash -c command` (one argument, never parsed here). */
export function bwrapArgs(sandbox: ResolvedSandbox, command: string, features: BwrapFeatures): string[] {
  return [
    ...processArgs(sandbox, features),
    ...mountArgs(sandbox),
    "--setenv", "TMPDIR", sandbox.tmpdir,
    "--chdir", sandbox.cwd,
    "bash", "-c", command,
  ];
}
