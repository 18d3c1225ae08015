// The miniclaw command: parses arguments, dispatches to a command, turns errors into one clear line and an exit code.
import { MiniclawError } from "../errors.js";
import { parseCliArgs, USAGE } from "./args.js";
import { nodeIo, type CliIo } from "./io.js";
import { visibleText } from "./visible-text.js";

/**
 * Runs the CLI and resolves to the exit code. Never throws: an error a person must
 * fix prints its message alone; anything unexpected prints one line (the stack only
 * with MINICLAW_DEBUG=1). Commands are loaded on demand so `run` does not pay for the REPL.
 */
export async function main(argv: string[], io: CliIo = nodeIo()): Promise<number> {
  try {
    const args = parseCliArgs(argv);
    switch (args.command) {
      case "help":
        io.stdout.write(`${USAGE}\n`);
        return 0;
      case "version":
        io.stdout.write(`${await readVersion()}\n`);
        return 0;
      case "run":
        return await (await import("./run.js")).runOnce(args, io);
      case "sessions":
        return await (await import("./sessions.js")).sessionsCommand(args, io);
      case "cron":
        return await (await import("./cron.js")).cronCommand(args, io);
      case "demo":
        return await (await import("./demo.js")).runDemo(args, io);
      case "repl":
        return await (await import("./repl.js")).runRepl(args, io);
    }
  } catch (error) {
    if (error instanceof MiniclawError) {
      // A configuration error can quote a file the model wrote (a SOUL.md, cron.json): shown, never interpreted.
      io.stderr.write(`${visibleText(error.message, { keepLineBreaks: true })}\n`);
      return 1;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`miniclaw: unexpected error: ${visibleText(message, { keepLineBreaks: true })}\n`);
    if (io.env["MINICLAW_DEBUG"] && error instanceof Error && error.stack) io.stderr.write(`${visibleText(error.stack, { keepLineBreaks: true })}\n`);
    return 1;
  }
}

async function readVersion(): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  const { join } = await import("node:path");
  const { PACKAGE_ROOT } = await import("../paths.js");
  const pkg = JSON.parse(await readFile(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string };
  return pkg.version;
}
