// More read-only programs: archive listings, system information, checksums, text tools and version queries.
import type { ProgramRule } from "./program-rules.js";

/** Merged into PROGRAM_RULES; a name here replaces the same name there. */
export const MORE_RULES: ReadonlyArray<readonly [string, ProgramRule]> = [];
