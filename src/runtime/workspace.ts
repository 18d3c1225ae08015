// The workspace folder: where it is, and its creation from the shipped templates on first use.
import { cp, mkdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { TEMPLATE_WORKSPACE } from "../paths.js";

/** Template entries copied into a new workspace; runtime files are never copied. */
const TEMPLATE_ENTRIES = ["agents", "cron.json", "HEARTBEAT.md"];

/** The workspace folder from `--workspace`, `MINICLAW_WORKSPACE`, or `./workspace`, resolved from `cwd`. */
export function resolveWorkspace(cwd: string, flag: string | undefined, env: Record<string, string | undefined>): string {
  return resolve(cwd, flag ?? env["MINICLAW_WORKSPACE"] ?? "workspace");
}

/**
 * Creates the workspace from the templates when it does not exist yet, and resolves to
 * true when it did so (the CLI says so in one line). An existing folder is left as it is.
 */
export async function ensureWorkspace(dir: string, templates = TEMPLATE_WORKSPACE): Promise<boolean> {
  const exists = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (exists) return false;
  await mkdir(dir, { recursive: true });
  if (resolve(templates) === resolve(dir)) return true;
  for (const entry of TEMPLATE_ENTRIES) {
    await cp(join(templates, entry), join(dir, entry), { recursive: true, errorOnExist: false, force: false }).catch(() => {});
  }
  return true;
}
