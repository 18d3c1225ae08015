// Kills the process groups of stdio MCP servers when miniclaw ends without closing them: an exit hook for the deaths
// miniclaw sees (an exit, its own signal handlers, an uncaught exception), and for SIGKILL a watchdog, a tiny shell
// reading a pipe only miniclaw writes to: however miniclaw dies, the shell reads EOF and kills every group still listed.
import { signalGroup } from "../fs/proc.js";
import { spawn, type ChildProcess } from "node:child_process";
import type { Socket } from "node:net";

/** `+PGID` lists a group, `-PGID` drops it; at EOF SIGTERM to every listed group alive, a second, then SIGKILL. `" PGID "` matches one whole number. */
const WATCHDOG_SCRIPT = `live=' ' left=''
while read -r op; do
  g=\${op#?}
  case $op in
    +*) live="$live$g " ;;
    -*) case $live in *" $g "*) live="\${live%% "$g" *} \${live#* "$g" }" ;; esac ;;
  esac
done
for g in $live; do kill -s TERM -- "-$g" 2>/dev/null && left="$left $g"; done
[ -n "$left" ] || exit 0
sleep 1
for g in $left; do kill -s KILL -- "-$g" 2>/dev/null; done`;

/** The one reaper of this process: the live groups, and the watchdog while any group is live. */
const state: { groups: Set<number>; watchdog: ChildProcess | undefined } = { groups: new Set(), watchdog: undefined };

/** Lists a process group to be killed if miniclaw ends while it lives; call it right after the spawn, and `unregisterGroup` once it is gone. */
export function registerGroup(pgid: number): void {
  if (state.groups.has(pgid)) return;
  if (state.groups.size === 0) {
    process.on("exit", killAllGroups);
    state.watchdog = startWatchdog();
  }
  state.groups.add(pgid);
  tellWatchdog(`+${pgid}`);
}

/** Drops a group that is gone; with the last, the watchdog ends and the exit hook is removed: the reaper is back as it began. */
export function unregisterGroup(pgid: number): void {
  if (!state.groups.delete(pgid)) return;
  tellWatchdog(`-${pgid}`);
  if (state.groups.size > 0) return;
  process.removeListener("exit", killAllGroups);
  state.watchdog?.stdin?.end();
  state.watchdog = undefined;
}

/** The pid of the running watchdog, or undefined while no group is live (or `sh` could not start). */
export function watchdogPid(): number | undefined {
  return state.watchdog?.pid;
}

/** The groups listed now, in the order they were registered. */
export function registeredGroups(): number[] {
  return [...state.groups];
}

/** The exit hook: synchronous (nothing after `exit` runs), and SIGKILL since there is no later moment to escalate. */
function killAllGroups(): void {
  for (const pgid of state.groups) signalGroup(pgid, "SIGKILL");
}

/**
 * The watchdog, in a session of its own (a Ctrl-C meant for miniclaw's terminal does not reach it), with nothing but
 * PATH in its environment, unreferenced so it never keeps miniclaw alive. Without `sh` the exit hook still works.
 */
function startWatchdog(): ChildProcess | undefined {
  const child = spawn("sh", ["-c", WATCHDOG_SCRIPT], {
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" },
  });
  child.on("error", () => {
    if (state.watchdog === child) state.watchdog = undefined;
  });
  // EPIPE when the watchdog was killed by someone else: nothing to do, the exit hook remains.
  child.stdin?.on("error", () => {});
  child.unref();
  (child.stdin as Socket | null)?.unref();
  return child;
}

function tellWatchdog(line: string): void {
  const stdin = state.watchdog?.stdin;
  if (stdin && !stdin.destroyed) stdin.write(`${line}\n`);
}
