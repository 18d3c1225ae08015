// The miniclaw command: parses arguments, dispatches to a command, turns errors into one clear line and an exit code.
import { keepShellParserAtBaseline } from "../shell/shell-parse.js";
import { MiniclawError } from "../errors.js";
import { MissingCredentialsError } from "../model/credentials.js";
import { parseCliArgs, type CliArgs } from "./args.js";
import { COMMAND_HELP, USAGE } from "./usage.js";
import { nodeIo, type CliIo } from "./io.js";
import { visibleText } from "./visible-text.js";

/** What the command line adds after the missing-credentials message: its own demo, which a library user's program does not have. */
const CREDENTIALS_HINT = "To try miniclaw without a key, run `npm run demo`, which uses the built-in scripted model.";

type Command = (args: CliArgs, io: CliIo) => Promise<number>;

/** Each command's module, loaded on demand, so `run` does not pay for the REPL. */
const COMMANDS: Record<Exclude<CliArgs["command"], "help" | "version">, () => Promise<Command>> = {
  run: async () => (await import("./run.js")).runOnce,
  sessions: async () => (await import("./sessions.js")).sessionsCommand,
  cron: async () => (await import("./cron.js")).cronCommand,
  mcp: async () => (await import("./mcp.js")).mcpCommand,
  steer: async () => (await import("./sessions.js")).steerCommand,
  db: async () => (await import("./backends.js")).dbCommand,
  demo: async () => (await import("./demo.js")).runDemo,
  init: async () => (await import("./setup.js")).initCommand,
  repl: async () => (await import("./repl.js")).runRepl,
  replay: async () => (await import("./replay.js")).replayCommand,
};

/** Runs the CLI and resolves to the exit code. Never throws: a failure becomes `describeFailure` on stderr and exit 1. */
export async function main(argv: string[], io: CliIo = nodeIo()): Promise<number> {
  keepShellParserAtBaseline();
  try {
    const args = parseCliArgs(argv);
    if (args.command === "help") io.stdout.write(`${args.helpFor === undefined ? USAGE : COMMAND_HELP[args.helpFor]}\n`);
    else if (args.command === "version") io.stdout.write(`${await readVersion()}\n`);
    else return await (await COMMANDS[args.command]())(args, io);
    return 0;
  } catch (error) {
    io.stderr.write(describeFailure(error, Boolean(io.env["MINICLAW_DEBUG"])));
    return 1;
  }
}

/** What the CLI prints for an error: one a person must fix (`fixedBy` "person"), its message alone (missing credentials: how to try the demo); else an "unexpected error" line (stack if `debug`). */
export function describeFailure(error: unknown, debug: boolean): string {
  const shown = (text: string): string => visibleText(text, { keepLineBreaks: true });
  if (error instanceof MissingCredentialsError) return `${shown(error.message)} ${CREDENTIALS_HINT}\n`;
  if (error instanceof MiniclawError && error.fixedBy === "person") return `${shown(error.message)}\n`;
  const message = error instanceof Error ? error.message : String(error);
  const stack = debug && error instanceof Error && error.stack ? `${shown(error.stack)}\n` : "";
  return `miniclaw: unexpected error: ${shown(message)}\n${stack}`;
}

async function readVersion(): Promise<string> {
  const [{ readFile }, { join }, { PACKAGE_ROOT }] = await Promise.all([import("node:fs/promises"), import("node:path"), import("../paths.js")]);
  return (JSON.parse(await readFile(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version;
}
