// Runs an ES module script in a new Node process (TypeScript sources importable through tsx), for what only a fresh process shows.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The `file:` URL of a source file, for the script's `await import(...)` (`src/...` from the repository root). */
export function sourceUrl(path: string): string {
  return new URL(path, `file://${ROOT}/`).href;
}

/** Runs `script` with `node --import tsx` from the repository root; resolves to what it printed. */
export function runModuleScript(script: string): { stdout: string; stderr: string; status: number | null } {
  const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", cwd: ROOT });
  return { stdout: run.stdout, stderr: run.stderr, status: run.status };
}
