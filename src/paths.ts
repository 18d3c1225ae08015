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
/** The shipped workspace a new one is made from: the package's `workspace/`, never a live workspace itself (the default lives in the home). */
export const TEMPLATE_WORKSPACE = join(PACKAGE_ROOT, "workspace");
/** Skills shipped with miniclaw; `workspace/skills/` adds the user's own and wins on a name clash. */
export const BUNDLED_SKILLS = join(PACKAGE_ROOT, "skills");
