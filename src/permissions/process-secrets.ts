// Reads that expose another process's environment (and so the API key): refused in every mode, bypass included.

/** Files under /proc that hold nothing secret; every other /proc path is refused. */
const HARMLESS_PROC = new Set(["cpuinfo", "meminfo", "loadavg", "uptime", "version", "stat", "mounts", "filesystems", "swaps"]);

/**
 * Why a command may not run in any mode, or null. The environment the CLI was started
 * with (API key included) is readable through `/proc/<pid>/environ` and `ps e`, in forms
 * that no redaction of the exact key text can catch (base64, reversed, hex). This is a
 * guard on the raw text, on top of the parsed gate: it only ever refuses.
 */
export function processSecretsReason(command: string): string | null {
  for (const match of command.matchAll(/\/proc\/([^\s'"`;|&<>()]*)/g)) {
    const rest = match[1] ?? "";
    if (!HARMLESS_PROC.has(rest)) return "it reads /proc, where process environments (and the API key) live";
  }
  if (/(^|[\s;|&(`])ps\s+(?:[^\s-]*e|[^|;&]*\s[^\s-]*e)/.test(command)) return "`ps e` prints the environment of processes";
  return null;
}

/** Whether a resolved path is a process environment file (refused for the file tools in every mode). */
export function isProcessSecretPath(path: string): boolean {
  return /^\/proc\//.test(path) && !HARMLESS_PROC.has(path.slice("/proc/".length));
}
