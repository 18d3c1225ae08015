// The miniclaw command: parses arguments, dispatches to a command, turns errors into one clear line and an exit code.
import { keepShellParserAtBaseline } from "../shell/shell-parse.js";
import { MiniclawError } from "../errors.js";
import { CLI_CREDENTIALS_HINT, MissingCredentialsError } from "../model/credentials.js";
import { parseCliArgs, USAGE } from "./args.js";
import { nodeIo, type CliIo } from "./io.js";
import { visibleText } from "./visible-text.js";

/** Runs the CLI and resolves to the exit code. Never throws: a failure becomes `describeFailure` on stderr and exit 1. Commands load on demand, so `run` does not pay for the REPL. */
export async function main(argv: string[], io: CliIo = nodeIo()): Promise<number> {
  keepShellParserAtBaseline();
  try {
    const args = parseCliArgs(argv);
    switch (args.command) {
      case "help":
        io.stdout.write(`${args.helpFor === "steer" ? (await import("./steer.js")).STEER_USAGE : USAGE}\n`);
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
      case "mcp":
        return await (await import("./mcp.js")).mcpCommand(args, io);
      case "steer":
        return await (await import("./steer.js")).steerCommand(args, io);
      case "db":
        return await (await import("./db.js")).dbCommand(args, io);
      case "demo":
        return await (await import("./demo.js")).runDemo(args, io);
      case "init":
        return await (await import("./init.js")).initCommand(args, io);
      case "repl":
        return await (await import("./repl.js")).runRepl(args, io);
    }
  } catch (error) {
    io.stderr.write(describeFailure(error, Boolean(io.env["MINICLAW_DEBUG"])));
    return 1;
  }
}

/**
 * What the CLI prints for an error that ended a command. What a person must fix (a miniclaw error whose `fixedBy` is
 * "person") prints its message alone (missing credentials add how to try the demo); anything else is a bug: one
 * "unexpected error" line, and the stack when `debug` (MINICLAW_DEBUG=1). Escaped: a message can quote a file the model wrote.
 */
export function describeFailure(error: unknown, debug: boolean): string {
  const shown = (text: string): string => visibleText(text, { keepLineBreaks: true });
  if (error instanceof MissingCredentialsError) return `${shown(error.message)} ${CLI_CREDENTIALS_HINT}\n`;
  if (error instanceof MiniclawError && error.fixedBy === "person") return `${shown(error.message)}\n`;
  const message = error instanceof Error ? error.message : String(error);
  const stack = debug && error instanceof Error && error.stack ? `${shown(error.stack)}\n` : "";
  return `miniclaw: unexpected error: ${shown(message)}\n${stack}`;
}

async function readVersion(): Promise<string> {
  const [{ readFile }, { join }, { PACKAGE_ROOT }] = await Promise.all([import("node:fs/promises"), import("node:path"), import("../paths.js")]);
  return (JSON.parse(await readFile(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version;
}
