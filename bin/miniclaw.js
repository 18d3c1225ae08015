#!/usr/bin/env node
// The miniclaw command: runs the bundled CLI (npm install builds dist/ through the prepare script).
import { setFlagsFromString } from "node:v8";

// A reader that stops early (`miniclaw sessions show KEY | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}

// The only WebAssembly here is the shell parser's 1.4 MB bash grammar. Its Liftoff baseline code parses a
// command in well under a millisecond; tiering it up to TurboFan costs about a second of CPU on background
// threads, which slows the rounds beside it on a small machine and holds the process at exit until done.
// Set for this process only: a program importing miniclaw as a library keeps its own engine settings.
setFlagsFromString("--liftoff-only");

let cli;
try {
  cli = await import("../dist/cli-bundle/main.js");
} catch (error) {
  if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist")) {
    process.stderr.write("miniclaw is not built: run `npm install` in its folder (it builds dist/ from src/).\n");
    process.exit(1);
  }
  throw error;
}
const code = await cli.main(process.argv.slice(2));
// Exit once output is flushed, so idle keep-alive sockets cannot hold the process open.
process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
