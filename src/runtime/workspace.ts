// The workspace folder: where it is, and its creation from the shipped templates (on first use, or by `miniclaw init`).
import { constants } from "node:fs";
import { copyFile, mkdir, readdir, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { ConfigError } from "../errors.js";
import { TEMPLATE_WORKSPACE } from "../paths.js";

/** The default workspace: the person's, in their home (`HOME`, else the OS's idea of it), not the folder they run in. */
export function defaultWorkspace(env: Readonly<Record<string, string | undefined>>): string {
  return join(env["HOME"] || homedir(), ".miniclaw", "workspace");
}

/** The workspace folder from `--workspace`, `MINICLAW_WORKSPACE` (both resolved from `cwd`), or `~/.miniclaw/workspace`. */
export function resolveWorkspace(cwd: string, flag: string | undefined, env: Record<string, string | undefined>): string {
  const given = flag ?? (env["MINICLAW_WORKSPACE"] || undefined);
  return given === undefined ? defaultWorkspace(env) : resolve(cwd, given);
}

/** True when `dir` exists as a folder, false when it does not. Throws ConfigError when something else (a file) stands there. */
export async function checkWorkspace(dir: string): Promise<boolean> {
  const info = await stat(dir).catch(() => undefined);
  if (info && !info.isDirectory()) throw new ConfigError(`the workspace ${dir} is not a folder (set --workspace or MINICLAW_WORKSPACE to a folder)`);
  return info !== undefined;
}

/** Fills the workspace from the templates when it is missing or empty (dotfiles aside), resolving true; anything else is left as it is, lacks reported where needed. */
export async function ensureWorkspace(dir: string, templates = TEMPLATE_WORKSPACE): Promise<boolean> {
  if ((await checkWorkspace(dir)) && !(await readdir(dir)).every((name) => name.startsWith("."))) return false;
  await initWorkspace(dir, templates);
  return true;
}

/** Copies each template file `dir` lacks (folders made as needed, no file overwritten); resolves to the relative paths copied and kept, in template order. Throws ConfigError when `dir` is not a folder. */
export async function initWorkspace(dir: string, templates = TEMPLATE_WORKSPACE): Promise<{ created: string[]; kept: string[] }> {
  await checkWorkspace(dir);
  await mkdir(dir, { recursive: true });
  const result = { created: [] as string[], kept: [] as string[] };
  if (resolve(templates) === resolve(dir)) return result;
  const entries = await readdir(templates, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => relative(templates, join(entry.parentPath, entry.name)));
  for (const file of files.sort((a, b) => a.localeCompare(b))) {
    const target = join(dir, file);
    await mkdir(dirname(target), { recursive: true });
    try {
      await copyFile(join(templates, file), target, constants.COPYFILE_EXCL);
      result.created.push(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      result.kept.push(file);
    }
  }
  return result;
}
