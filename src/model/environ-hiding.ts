// Keeps secrets out of /proc/<pid>/environ: overwrites them in the process's original environment block (Linux).
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { procStatFields } from "../fs/proc.js";

/** What `hideSecretsFromProcEnviron` did: the names it blanked, or why it could do nothing. */
export type EnvironHiding = { hidden: string[] } | { hidden: []; unavailable: string };

/** Fields 50 and 51 of /proc/<pid>/stat (env_start, env_end), as `procStatFields` counts them. */
const ENV_START_FIELD = 50 - 3;
const ENV_END_FIELD = 51 - 3;

/**
 * Called once the API client exists. `/proc/<pid>/environ` shows the environment a process started with, whatever `process.env` says later, to any process
 * of the same user (a command the model runs). Each variable there for which `isSecret(name, value)` holds is set again in `process.env` (setenv copies the
 * value, so the program still reads it), then overwritten with `*` in the block through /proc/self/mem. Linux only: elsewhere it changes nothing and says
 * why. Never throws; later calls return the first call's outcome.
 */
export function hideSecretsFromProcEnviron(isSecret: (name: string, value: string) => boolean): EnvironHiding {
  hiding ??= hideOnce(isSecret);
  return hiding;
}

let hiding: EnvironHiding | undefined;

function hideOnce(isSecret: (name: string, value: string) => boolean): EnvironHiding {
  let step = "read the environment block";
  let fd: number | undefined;
  try {
    const block = readEnvironBlock();
    const targets = findSecrets(block.bytes, isSecret);
    if (targets.length === 0) return { hidden: [] };
    for (const { name, value } of targets) if (process.env[name] === value) process.env[name] = value;
    step = "open /proc/self/mem for writing";
    fd = openSync("/proc/self/mem", "r+");
    step = "write the environment block";
    for (const { offset, length } of targets) writeSync(fd, Buffer.alloc(length, "*"), 0, length, block.start + offset);
    return { hidden: [...new Set(targets.map((t) => t.name))] };
  } catch (error) {
    return { hidden: [], unavailable: `cannot ${step} (${error instanceof Error ? error.message : String(error)})` };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The block's address and its bytes as they are now (`/proc/self/environ` reads exactly env_start..env_end). */
function readEnvironBlock(): { start: number; bytes: Buffer } {
  const fields = procStatFields("self") ?? [];
  const start = Number(fields[ENV_START_FIELD]);
  const end = Number(fields[ENV_END_FIELD]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start) throw new Error("no env_start/env_end in /proc/self/stat");
  const bytes = readFileSync("/proc/self/environ");
  if (bytes.length > end - start) throw new Error("/proc/self/environ is larger than the block /proc/self/stat names");
  return { start, bytes };
}

/** The `NAME=value` entries of a NUL-separated block whose values are secrets and not blanked already; `offset` is the value's in the block. */
function findSecrets(bytes: Buffer, isSecret: (name: string, value: string) => boolean): Array<{ name: string; value: string; offset: number; length: number }> {
  const spans: Array<{ name: string; value: string; offset: number; length: number }> = [];
  let entryStart = 0;
  while (entryStart < bytes.length) {
    const nul = bytes.indexOf(0, entryStart);
    const entryEnd = nul === -1 ? bytes.length : nul;
    const equals = bytes.indexOf(0x3d, entryStart);
    if (equals !== -1 && equals < entryEnd) {
      const name = bytes.toString("utf8", entryStart, equals);
      const value = bytes.toString("utf8", equals + 1, entryEnd);
      const length = entryEnd - equals - 1;
      if (length > 0 && !/^\**$/.test(value) && isSecret(name, value)) spans.push({ name, value, offset: equals + 1, length });
    }
    entryStart = entryEnd + 1;
  }
  return spans;
}
