// The workspace folder: where it is, and its creation from the shipped templates on first use.
import { cp, mkdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ConfigError } from "../errors.js";
import { TEMPLATE_WORKSPACE } from "../paths.js";

/** Template entries copied into a new workspace; runtime files are never copied. */
const TEMPLATE_ENTRIES = ["agents", "cron.json", "HEARTBEAT.md"];

/** The workspace folder from `--workspace`, `MINICLAW_WORKSPACE`, or `./workspace`, resolved from `cwd`. */
export function resolveWorkspace(cwd: string, flag: string | undefined, env: Record<string, string | undefined>): string {
  return resolve(cwd, flag ?? env["MINICLAW_WORKSPACE"] ?? "workspace");
}

/**
 * True when `dir` exists as a folder, false when it does not exist. Throws ConfigError
 * when something else (a file) stands at that path.
 */
export async function checkWorkspace(dir: string): Promise<boolean> {
  const info = await stat(dir).catch(() => undefined);
  if (info && !info.isDirectory()) throw new ConfigError(`the workspace ${dir} is not a folder (set --workspace or MINICLAW_WORKSPACE to a folder)`);
  return info !== undefined;
}

/**
 * Creates the workspace from the templates when it does not exist yet, and resolves to
 * true when it did so (the CLI says so in one line). An existing folder is left as it is.
 */
export async function ensureWorkspace(dir: string, templates = TEMPLATE_WORKSPACE): Promise<boolean> {
  if (await checkWorkspace(dir)) return false;
  await mkdir(dir, { recursive: true });
  if (resolve(templates) === resolve(dir)) return true;
  for (const entry of TEMPLATE_ENTRIES) {
    await cp(join(templates, entry), join(dir, entry), { recursive: true, errorOnExist: false, force: false }).catch(() => {});
  }
  return true;
}
