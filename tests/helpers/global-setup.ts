// Builds dist/ once before the suite (the library and the bundled CLI), so tests that spawn bin/miniclaw.js run the current source.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export default function setup(): void {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  execFileSync("npm", ["run", "--silent", "build"], { cwd: root, stdio: "inherit" });
}
