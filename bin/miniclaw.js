#!/usr/bin/env node
// The miniclaw command: runs the bundled CLI (npm install builds dist/ through the prepare script).
// A reader that stops early (`miniclaw sessions show KEY | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}

let cli;
try {
  cli = await import("../dist/pkg/cli/main.js");
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
