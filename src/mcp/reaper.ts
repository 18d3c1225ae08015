// Kills the process groups of stdio MCP servers when miniclaw ends without closing them: an exit hook, and a watchdog for SIGKILL.
//
// Two mechanisms because no single one covers every death. The exit hook runs on a normal exit, when
// the CLI's own SIGINT/SIGTERM handlers end the process, and after an uncaught exception; it cannot
// run when miniclaw is killed by a signal it does not handle (SIGKILL above all). The watchdog covers
// that: a tiny shell holding the read end of a pipe only miniclaw writes to. However miniclaw dies,
// the kernel closes its end, the shell reads EOF and kills every group still listed.
import { signalGroup } from "../fs/proc.js";
import { spawn, type ChildProcess } from "node:child_process";
import type { Socket } from "node:net";

/**
 * The watchdog: `+PGID` lists a group, `-PGID` drops it; at EOF it sends SIGTERM to every listed group
 * still alive, waits a second, then SIGKILLs those. Groups are kept space-separated with a space on
 * each side, so `" PGID "` matches one whole number.
 */
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

/**
 * Lists a process group (a child spawned detached leads one; its pid is the group id) to be killed
 * if miniclaw ends while it lives. The first live group starts the watchdog and installs the exit
 * hook. Call it right after the spawn, and `unregisterGroup` once the group is gone.
 */
export function registerGroup(pgid: number): void {
  if (state.groups.has(pgid)) return;
  if (state.groups.size === 0) {
    process.on("exit", killAllGroups);
    state.watchdog = startWatchdog();
  }
  state.groups.add(pgid);
  tellWatchdog(`+${pgid}`);
}

/**
 * Drops a group that is gone (or was killed by its owner). With the last group, the watchdog is told
 * to end (it has nothing left to kill) and the exit hook is removed: the reaper is back as it began.
 */
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

/**
 * The exit hook: SIGKILL to every listed group. It must be synchronous (nothing after `exit` runs), and
 * SIGKILL rather than SIGTERM because there is no later moment to escalate.
 */
function killAllGroups(): void {
  for (const pgid of state.groups) signalGroup(pgid, "SIGKILL");
}

/**
 * Starts the watchdog in a session of its own (so a Ctrl-C or hang-up meant for miniclaw's terminal
 * does not reach it), with nothing but PATH in its environment, and unreferenced, pipe included, so it
 * never keeps miniclaw alive. Without `sh` there is no watchdog; the exit hook still works.
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
