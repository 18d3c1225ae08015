// Where the package's own files are: the workspace templates and the bundled skills.
import { fileURLToPath } from "node:url";
import { join } from "node:path";

/** The package root, from both `src/` (tests) and `dist/` (the built CLI and library). */
export const PACKAGE_ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Templates a new workspace is created from. */
export const TEMPLATE_WORKSPACE = join(PACKAGE_ROOT, "workspace");
/** Skills shipped with miniclaw; `workspace/skills/` adds the user's own and wins on a name clash. */
export const BUNDLED_SKILLS = join(PACKAGE_ROOT, "skills");
