// Processes as Linux shows them: whether one exists, when it started, and the fields of /proc/<pid>/stat.
import { readFileSync } from "node:fs";
import { orFallback } from "../errors.js";

/** Linux clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on every mainstream build). */
const USER_HZ = 100;

/** Whether a process exists (`id`) or a process group has a member (`-pgid`); EPERM means one of another user. */
export function processExists(id: number): boolean {
  try {
    process.kill(id, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The fields of `/proc/<pid>/stat` after the bracketed command name: field N of proc(5) is `[N - 3]` (`[2]` the group). Undefined where unreadable. */
export function procStatFields(pid: number | "self"): string[] | undefined {
  const stat = orFallback(() => readFileSync(`/proc/${pid}/stat`, "latin1"), undefined);
  return stat?.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** Whether the process now holding `pid` started after `ts` (ms since the epoch): a pid reused since. False where that cannot be read. */
export function startedAfter(pid: number, ts: number): boolean {
  const startTicks = Number(procStatFields(pid)?.[19]);
  const bootSeconds = Number(/^btime (\d+)$/m.exec(orFallback(() => readFileSync("/proc/stat", "utf8"), ""))?.[1]);
  if (!Number.isFinite(startTicks) || !Number.isFinite(bootSeconds)) return false;
  return bootSeconds * 1000 + (startTicks / USER_HZ) * 1000 > ts;
}

/** Sends `signal` to every process of a process group; a group already gone is no error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  orFallback(() => process.kill(-pgid, signal), false);
}
