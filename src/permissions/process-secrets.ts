// Reads that expose another process's environment (and so the API key): refused in every mode, bypass included.

/** Files under /proc that hold nothing secret; every other /proc path is refused. */
const HARMLESS_PROC = new Set(["cpuinfo", "meminfo", "loadavg", "uptime", "version", "stat", "mounts", "filesystems", "swaps"]);
/** Programs that read file contents recursively when given a folder. */
const RECURSIVE_READERS = /^(grep|egrep|fgrep|rg|ag|ack|git)$/;

/**
 * Why a command may not run in any mode, or null. The environment the CLI was started
 * with (API key included) is readable through `/proc/<pid>/environ` and `ps e`, in forms
 * that no redaction of the exact key text can catch (base64, reversed, a slice). This is
 * a guard on the raw words, on top of the parsed gate: it only ever refuses. Refused: a
 * path into /proc (however spelled: `//proc`, `/./proc`), a glob at the top of the tree
 * (`/pro*`), a recursive content search from `/`, and `ps e`.
 */
export function processSecretsReason(command: string): string | null {
  const words = command.split(/[\s;|&<>()`'"=]+/).filter(Boolean);
  for (const word of words) {
    const path = normalize(word);
    if (path === "/proc" || (path.startsWith("/proc/") && !HARMLESS_PROC.has(path.slice(6)))) {
      return "it reads /proc, where process environments (and the API key) live";
    }
    if (/^\/[^/]*[*?[{]/.test(path)) return "a wildcard at the top of the file tree can reach /proc";
  }
  const program = words[0] ?? "";
  if (RECURSIVE_READERS.test(program) && words.slice(1).some((w) => normalize(w) === "/")) {
    return "a recursive search from / reads /proc, where process environments live";
  }
  if (/(^|[\s;|&(`])ps\s+(?:[^\s-]*e|[^|;&]*\s[^\s-]*e)/.test(command)) return "`ps e` prints the environment of processes";
  return null;
}

/** Whether a resolved path is a process environment file (refused for the file tools in every mode). */
export function isProcessSecretPath(path: string): boolean {
  const p = normalize(path);
  return (p === "/proc" || p.startsWith("/proc/")) && !HARMLESS_PROC.has(p.slice("/proc/".length));
}

/** Collapses repeated slashes and `/./` segments; leaves `..` alone (it never shortens toward /proc safely). */
function normalize(word: string): string {
  if (!word.startsWith("/")) return word;
  let path = word.replace(/\/+/g, "/");
  while (path.includes("/./")) path = path.replace("/./", "/");
  if (path.endsWith("/.")) path = path.slice(0, -2) || "/";
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}
