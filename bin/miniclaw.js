#!/usr/bin/env node
// The miniclaw command: runs the bundled CLI. An installed package ships it built; a checkout of the repository (src/
// beside bin/) builds it on the first run, so `npm install && npm start` needs no step of its own and the package needs
// no install script. After changing src/, `npm run build` (or `npm test`, which builds first) brings it up to date.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

// A reader that stops early (`miniclaw sessions show KEY | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}

const built = new URL("../dist/pkg/cli/main.js", import.meta.url);
if (!existsSync(built) && existsSync(new URL("../src/cli/main.ts", import.meta.url))) {
  process.stderr.write("miniclaw: building the command from src/ (once)...\n");
  const bundle = spawnSync(process.execPath, [fileURLToPath(new URL("../scripts/bundle.mjs", import.meta.url))], { stdio: ["ignore", "ignore", "inherit"] });
  if (bundle.status !== 0) {
    process.stderr.write("miniclaw: the build failed (above); run `npm install` in its folder, then try again.\n");
    process.exit(1);
  }
}
const cli = await import(built.href);
const code = await cli.main(process.argv.slice(2));
// Exit once output is flushed, so idle keep-alive sockets cannot hold the process open.
process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
