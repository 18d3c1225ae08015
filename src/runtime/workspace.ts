// The workspace folder: where it is, and its creation from the shipped templates (on first use, or by `miniclaw init`).
import { constants } from "node:fs";
import { copyFile, mkdir, readdir, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { ConfigError } from "../errors.js";
import { TEMPLATE_WORKSPACE } from "../paths.js";

/** What `initWorkspace` did: workspace-relative paths, in template order. */
export interface InitResult {
  /** Files copied from the templates. */
  created: string[];
  /** Template files that already existed and were left as they are. */
  kept: string[];
}

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
 * Fills the workspace from the templates when it does not exist yet or is an empty folder
 * (hidden entries such as `.DS_Store` do not count), and resolves to true when it did so (the
 * CLI says so in one line). A folder with anything else in it is left as it is: what it lacks
 * is reported where it is needed (`loadAgents` explains a missing `agents/`).
 */
export async function ensureWorkspace(dir: string, templates = TEMPLATE_WORKSPACE): Promise<boolean> {
  if ((await checkWorkspace(dir)) && !(await isEmptyFolder(dir))) return false;
  await initWorkspace(dir, templates);
  return true;
}

/**
 * Copies every template file that `dir` lacks, creating `dir` and folders as needed, and
 * never overwrites a file that exists (the copy itself refuses, so a file created meanwhile
 * is kept too). Throws ConfigError when `dir` is not a folder.
 */
export async function initWorkspace(dir: string, templates = TEMPLATE_WORKSPACE): Promise<InitResult> {
  await checkWorkspace(dir);
  await mkdir(dir, { recursive: true });
  const result: InitResult = { created: [], kept: [] };
  if (resolve(templates) === resolve(dir)) return result;
  for (const file of await filesUnder(templates)) {
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

async function isEmptyFolder(dir: string): Promise<boolean> {
  const entries = await readdir(dir);
  return entries.every((name) => name.startsWith("."));
}

/** Every file below `root`, relative to it, sorted so the listing reads the same everywhere. */
async function filesUnder(root: string, prefix = ""): Promise<string[]> {
  const files: string[] = [];
  const entries = await readdir(join(root, prefix), { withFileTypes: true });
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = prefix ? join(prefix, entry.name) : entry.name;
    if (entry.isDirectory()) files.push(...(await filesUnder(root, path)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}
