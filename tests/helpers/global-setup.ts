// Builds dist/ once before the suite (the library and the bundled CLI), so tests that spawn bin/miniclaw.js run the current source.
// After `npm run typecheck` (what `npm test` runs first) the tsc step finds src up to date and only esbuild works.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export default function setup(): void {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  execFileSync("npm", ["run", "--silent", "build"], { cwd: root, stdio: "inherit" });
}
