// Builds dist/ once before the suite (the library and the bundled CLI), so tests that spawn bin/miniclaw.js run the current source.
// After `npm run typecheck` (what `npm test` runs first) the tsc step finds src up to date and only esbuild works.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

/** What package.json's build script must say for the two steps below to be that script. */
const BUILD = "tsc -b tsconfig.build.json && npm run bundle";

/** Runs `command` through the shell with the package's bins on PATH, output shown; rejects when it fails. */
function sh(command: string, cwd: string): Promise<void> {
  const env = { ...process.env, PATH: `${join(cwd, "node_modules", ".bin")}${delimiter}${process.env["PATH"] ?? ""}` };
  return new Promise((resolve, reject) => {
    const child = spawn(command, { cwd, env, shell: true, stdio: "inherit" });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`\`${command}\` failed (exit ${code})`))));
  });
}

/**
 * `npm run build` without npm: its tsc step and the bundle script at the same time (esbuild reads src, not tsc's
 * output, and writes only dist/cli-bundle), which saves npm's own start twice and a second of waiting.
 */
export default async function setup(): Promise<() => void> {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const { scripts } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };
  if (scripts["build"] !== BUILD || !scripts["bundle"]) throw new Error(`tests/helpers/global-setup.ts runs "${BUILD}"; package.json's build script is now "${scripts["build"]}": update the setup`);
  await Promise.all([sh("tsc -b tsconfig.build.json", root), sh(scripts["bundle"], root)]);
  return useTestHome();
}

/**
 * A home of the suite's own for the workers it starts (they inherit the environment): no test reads or writes the real
 * `~/.miniclaw` (the default workspace), `~/.ssh` or shell history. npm keeps the real cache, so installs stay offline.
 */
function useTestHome(): () => void {
  const home = mkdtempSync(join(tmpdir(), "miniclaw-test-home-"));
  process.env["npm_config_cache"] ??= join(homedir(), ".npm");
  process.env["HOME"] = home;
  return () => rmSync(home, { recursive: true, force: true });
}
