// The built library (dist/), loaded as users get it, typed from the sources it was built from.
import type * as Miniclaw from "../src/index.js";

/** The package's entry, what `import "miniclaw"` loads (package.json's exports); `npm run bench` builds it first. */
const DIST_INDEX = new URL("../dist/pkg/index.js", import.meta.url).href;

/** The miniclaw package's main export, from dist/. */
export type MiniclawLibrary = typeof Miniclaw;

/** Imports the built entry. Rejects with a hint when it was not built. */
export async function loadBuiltLibrary(): Promise<MiniclawLibrary> {
  try {
    return (await import(DIST_INDEX)) as MiniclawLibrary;
  } catch (error) {
    throw new Error(`cannot load ${DIST_INDEX} (run \`npm run build\` first): ${error instanceof Error ? error.message : String(error)}`);
  }
}
