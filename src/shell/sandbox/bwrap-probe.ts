// Whether bubblewrap is installed and can build a sandbox on this machine: one short run, once per process.
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import type { Spawn } from "../../deps.js";
import { orFallback } from "../../errors.js";

/** What the probe found: the bwrap to run and what it supports, or the one line saying why commands run unsandboxed. */
export type BwrapProbe =
  | { available: true; path: string; disableUserns: boolean }
  | { available: false; reason: string };

interface BwrapProbeOptions { pathEnv: string | undefined; spawn: Spawn }
/** A sandbox that is never slow to build: past this, the probe gives up and says so. */
const PROBE_TIMEOUT_MS = 5_000;
/** The flags every sandbox is built with, so the probe fails where a command would; `--disable-userns` (0.8+) is tried first. */
const PROBE_ARGS = ["--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"];
const probes = new WeakMap<Spawn, Map<string, Promise<BwrapProbe>>>();

/** Probes bubblewrap once per process for each PATH and spawn function. Never rejects: a failure is `available: false` with a one-line reason. */
export function probeBwrap(options: BwrapProbeOptions): Promise<BwrapProbe> {
  let byPath = probes.get(options.spawn);
  if (byPath === undefined) probes.set(options.spawn, (byPath = new Map()));
  const key = options.pathEnv ?? "";
  let probe = byPath.get(key);
  if (probe === undefined) byPath.set(key, (probe = runProbe(options)));
  return probe;
}

async function runProbe(options: BwrapProbeOptions): Promise<BwrapProbe> {
  const path = findOnPath("bwrap", options.pathEnv);
  if (path === null) return { available: false, reason: "bubblewrap (bwrap) is not installed" };
  const first = await tryRun(options.spawn, path, ["--disable-userns", ...PROBE_ARGS]);
  if (first.ok) return { available: true, path, disableUserns: true };
  if (!/disable-userns/.test(first.stderr)) return { available: false, reason: whyNot(first.stderr) };
  const second = await tryRun(options.spawn, path, PROBE_ARGS);
  return second.ok ? { available: true, path, disableUserns: false } : { available: false, reason: whyNot(second.stderr) };
}

/** The first executable `name` on a PATH value, or null. */
export function findOnPath(name: string, pathEnv: string | undefined): string | null {
  for (const dir of (pathEnv ?? "").split(delimiter)) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (orFallback(() => accessSync(candidate, constants.X_OK) === undefined, false)) return candidate;
  }
  return null;
}

function tryRun(spawn: Spawn, file: string, args: string[]): Promise<{ ok: boolean; stderr: string }> {
  return new Promise((resolve) => {
    let stderr = "";
    const child = spawn(file, args, { stdio: ["ignore", "ignore", "pipe"], timeout: PROBE_TIMEOUT_MS });
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", (error) => resolve({ ok: false, stderr: error.message }));
    child.once("close", (code, signal) => resolve({ ok: code === 0, stderr: signal === null ? stderr : `timed out (${signal})` }));
  });
}

function whyNot(stderr: string): string {
  const line = stderr.trim().split("\n")[0]?.replace(/^bwrap: /, "") ?? "";
  const said = line === "" ? "it failed without a message" : line;
  if (/namespace|uid map|operation not permitted|permission denied/i.test(said)) return `user namespaces are disabled: ${said}`;
  return `bubblewrap (bwrap) does not work here: ${said}`;
}

/** The line said once at start when commands cannot be sandboxed. */
export function unsandboxedNotice(probe: BwrapProbe): string | null {
  return probe.available ? null : `commands run unsandboxed: ${probe.reason}`;
}
