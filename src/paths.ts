// Where the package's own files are: the workspace templates and the bundled skills.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package root: the nearest folder above this module with `package.json` and `skills/`, so it is right from `src/`, `dist/` and `dist/cli/` alike. */
export const PACKAGE_ROOT = ((from: string): string => {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "skills"))) return dir;
    if (dirname(dir) === dir) return dirname(from);
  }
})(dirname(fileURLToPath(import.meta.url)));
/** Templates a new workspace is created from, kept apart from any live workspace, so a run never changes the package. */
export const TEMPLATE_WORKSPACE = join(PACKAGE_ROOT, "templates", "workspace");
/** Skills shipped with miniclaw; `workspace/skills/` adds the user's own and wins on a name clash. */
export const BUNDLED_SKILLS = join(PACKAGE_ROOT, "skills");
