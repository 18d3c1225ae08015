// Where the package's own files are: the workspace templates and the bundled skills.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The package root: the nearest folder above this module holding `package.json` and
 * `skills/`. Found by walking up, so it is right from `src/` (tests), `dist/`
 * (the library) and `dist/cli/` (the bundled command line) alike.
 */
function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "skills"))) return dir;
    if (dirname(dir) === dir) return dirname(from);
  }
}

export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));
/**
 * Templates a new workspace is created from, shipped in the package. Kept apart from any live
 * workspace, so what a user edits or a run writes never shows up as a change to the package.
 */
export const TEMPLATE_WORKSPACE = join(PACKAGE_ROOT, "templates", "workspace");
/** Skills shipped with miniclaw; `workspace/skills/` adds the user's own and wins on a name clash. */
export const BUNDLED_SKILLS = join(PACKAGE_ROOT, "skills");
