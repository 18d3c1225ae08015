// Command-line arguments: the command, its words, and the options every command shares.
import { parseArgs } from "node:util";
import { ConfigError } from "../errors.js";
import { parseEffort, parseMaxIterations, parseThinking, type Parsed } from "../model/settings.js";
import { PERMISSION_MODES, type PermissionMode } from "../gate/context.js";
import type { Effort, ThinkingSetting } from "../types.js";

/** The command line, parsed: the command, the words after it, and the options. */
export interface CliArgs {
  command: "repl" | "run" | "cron" | "sessions" | "mcp" | "steer" | "db" | "demo" | "init" | "replay" | "help" | "version";
  /** Words after the command (`run MESSAGE...`, `sessions show KEY`, `cron run JOB`, `steer KEY TEXT...`). */
  words: string[];
  workspace?: string;
  model?: string;
  agent?: string;
  session?: string;
  /** `run --continue`: go on in the session of the last `run` instead of a new one. */
  continueLast: boolean;
  /** `sessions show --all`: the whole file, compacted parts too. */
  all: boolean;
  /** `cron run JOB --force`: run a paused job anyway. */
  force: boolean;
  permissionMode?: PermissionMode;
  /** `--help` after a command that has its own help (`steer --help`): that command's, not the general one. */
  helpFor?: "steer";
  /** `--thinking`, `--effort`, `--max-iterations`: over every agent's SOUL.md (the REPL, run, cron). */
  thinking?: ThinkingSetting;
  effort?: Effort;
  maxIterations?: number;
  /** `run --output-schema FILE`: the JSON Schema file of the structured answer, as given. */
  outputSchema?: string;
  /** `--database-url URL`: sessions and cron on PostgreSQL (over MINICLAW_DATABASE_URL). */
  databaseUrl?: string;
  /** `--sandbox off|on|auto`: the OS sandbox of commands (over MINICLAW_SANDBOX and settings.json). */
  sandbox?: "off" | "on" | "auto";
  /** `run --output-format text|json|stream-json`: the reply alone, one JSON object, or one event per line then the object. */
  outputFormat?: "text" | "json" | "stream-json";
  /** `run --record FILE`, `--record FILE` (the REPL): a cassette of every request and response. */
  record?: string;
  /** `mcp add`: `--transport stdio|http|sse`, `-e KEY=VALUE` (stdio), `-H "Name: value"` (http); `-y`: no question before writing mcp.json. */
  mcpAdd?: { transport?: string; env: string[]; headers: string[] };
  yes?: boolean;
  /** `replay --tolerate system,tools`: request fields whose changes are no difference. */
  tolerate?: string[];
  /** The command line as given, less `--record FILE`: what a cassette keeps, for `miniclaw replay` to run again. */
  argv?: string[];
}

const COMMANDS = new Set(["run", "cron", "sessions", "mcp", "steer", "db", "demo", "init", "replay", "help"]);
/** The modes in the order a person meets them: the default first, the one that asks nothing last. */
const MODES: readonly PermissionMode[] = ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"];
/** The commands that run turns, and so take `--thinking` and `--effort`. */
const TURN_COMMANDS = new Set(["repl", "run", "cron", "demo"]);

export const USAGE = `Usage: miniclaw [command] [options]

Commands:
  (none)                    the REPL assistant (line mode when stdin is not a terminal)
  run MESSAGE               one turn; the final reply on stdout
  run --output-format json|stream-json MESSAGE
                            one JSON object (result, session, stop reason, usage, cost), or
                            one event per line and then that object; piped stdin joins the
                            message (or is the message, with none or -)
  run --output-schema FILE MESSAGE
                            one turn whose answer is a JSON object checked against the
                            JSON Schema in FILE; the object alone on stdout
  cron                      run the jobs of workspace/cron.json until stopped
  cron run JOB | cron list  run one job now (--force: even when paused) | list jobs and their next run
  cron runs [JOB]           the latest runs, of every job or of JOB
  sessions [show KEY]       list sessions | print one (--all: compacted parts too)
  sessions new KEY          create an empty session
  sessions fork FROM NEW [ID]  copy a session (up to message ID) under a new key
  sessions export KEY       a session as JSONL on stdout (either backend)
  sessions import FILE      a session from a JSONL file (--session KEY: under another key)
  db migrate                create or update the tables (PostgreSQL; also done on first use)
  mcp [list]                the MCP servers of workspace/mcp.json: connects them, lists
                            their state and tools, stops them
  mcp add NAME URL | mcp add NAME -- COMMAND [ARGS...]
                            add a server to mcp.json after you confirm (--transport http|sse,
                            -H "Name: value"; -e KEY=VALUE for a command; -y: no question)
  mcp remove NAME           remove a server from mcp.json (and its sign-in) after you confirm
  mcp login NAME            sign in to an http server (OAuth): opens the page with $BROWSER or
                            prints it; the tokens go to workspace/mcp-credentials.json (0600)
  steer KEY TEXT            add a message to session KEY's running turn, or its next one
                            (from another terminal; see miniclaw steer --help)
  demo                      the REPL against the built-in scripted model (no key needed)
  init [DIR]                create a workspace from the templates (default ~/.miniclaw/workspace); keeps existing files
  replay FILE               run a cassette (made with --record) again against this code and workspace,
                            offline; pass, or the first difference (--tolerate system,tools)

Options:
  --workspace DIR           workspace folder (env MINICLAW_WORKSPACE, default ~/.miniclaw/workspace)
  --model ID                model (env MINICLAW_MODEL)
  --agent ID                agent to talk to (default main)
  --session KEY             session key (default agent:<agent>:main; run: a new session each time)
  -c, --continue            run: go on in the session of the last run
  --permission-mode MODE    default | acceptEdits | plan | dontAsk | bypassPermissions
                            (the REPL's /mode changes it)
  --thinking MODE           adaptive | off | a budget in tokens (at least 1024); overrides
                            every agent's SOUL.md (REPL, run, cron)
  --effort LEVEL            low | medium | high | xhigh | max; overrides every agent's
                            SOUL.md (REPL, run, cron; the REPL's /effort changes it)
  --max-iterations N        model requests per turn before it stops (default 20, or the
                            agent's max_iterations; REPL, run, cron)
  --database-url URL        sessions and cron on PostgreSQL (env MINICLAW_DATABASE_URL;
                            schema from MINICLAW_DATABASE_SCHEMA, default miniclaw)
  --sandbox MODE            on | auto | off: commands run under bubblewrap where it works
                            (on, the default); auto also runs a command the gate cannot
                            prove read-only unasked, confined to the working folder with no
                            network (env MINICLAW_SANDBOX, or "sandbox" in settings.json)
  --record FILE             run, the REPL: write every model request and response to a
                            cassette (credentials removed) that miniclaw replay FILE runs again
  -h, --help                this text
  -v, --version             the version`;

const OPTIONS = {
  workspace: { type: "string" }, model: { type: "string" }, agent: { type: "string" }, session: { type: "string" }, "permission-mode": { type: "string" },
  thinking: { type: "string" }, effort: { type: "string" }, "max-iterations": { type: "string" }, "output-schema": { type: "string" }, "database-url": { type: "string" }, sandbox: { type: "string" }, record: { type: "string" }, tolerate: { type: "string" }, "output-format": { type: "string" },
  transport: { type: "string", short: "t" }, env: { type: "string", short: "e", multiple: true }, header: { type: "string", short: "H", multiple: true }, yes: { type: "boolean", short: "y" },
  continue: { type: "boolean", short: "c", default: false }, all: { type: "boolean", default: false }, force: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false }, version: { type: "boolean", short: "v", default: false },
} as const;

type Values = ReturnType<typeof readArgv>["values"];

/** Parses argv (without node and the script). Throws ConfigError with a one-line message on bad input. */
export function parseCliArgs(argv: string[]): CliArgs {
  const { values, positionals } = readArgv(argv);
  const mode = values["permission-mode"];
  if (mode !== undefined && !(PERMISSION_MODES as readonly string[]).includes(mode)) throw new ConfigError(`--permission-mode must be one of: ${MODES.join(", ")}`);
  if (values.sandbox !== undefined && !["off", "on", "auto"].includes(values.sandbox)) throw new ConfigError("--sandbox must be one of: on, auto, off");
  const first = positionals[0];
  if (values.help && first === "steer") return { command: "help", helpFor: "steer", words: [], all: false, continueLast: false, force: false };
  const command = values.help ? "help" : values.version ? "version" : first && COMMANDS.has(first) ? first : "repl";
  if (command === "repl" && first !== undefined) {
    throw new ConfigError(`unknown command "${first}" (see miniclaw --help; to send a message use: miniclaw run "${first} ...")`);
  }
  checkCombinations(command, values);
  return {
    command: command as CliArgs["command"],
    words: command === "repl" || command === "help" || command === "version" ? [] : positionals.slice(1),
    all: values.all === true,
    continueLast: values.continue === true,
    argv: withoutRecord(argv),
    force: values.force === true,
    ...given({
      workspace: values.workspace,
      model: values.model,
      agent: values.agent,
      session: values.session,
      permissionMode: mode as PermissionMode | undefined,
      thinking: values.thinking === undefined ? undefined : checked("--thinking", parseThinking(values.thinking)),
      effort: values.effort === undefined ? undefined : checked("--effort", parseEffort(values.effort)),
      maxIterations: values["max-iterations"] === undefined ? undefined : checked("--max-iterations", parseMaxIterations(values["max-iterations"])),
      outputSchema: values["output-schema"],
      databaseUrl: values["database-url"],
      sandbox: values.sandbox as CliArgs["sandbox"],
      record: values.record,
      outputFormat: values["output-format"] as CliArgs["outputFormat"],
      tolerate: values.tolerate?.split(",").map((field) => field.trim()).filter(Boolean),
      mcpAdd: values.transport === undefined && values.env === undefined && values.header === undefined ? undefined : { ...given({ transport: values.transport }), env: values.env ?? [], headers: values.header ?? [] },
      yes: values.yes,
    }),
  };
}

/** `argv` less `--record FILE` (or `--record=FILE`). */
function withoutRecord(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--record") i++;
    else if (!argv[i]!.startsWith("--record=")) out.push(argv[i]!);
  }
  return out;
}

/** node:util's parse, its errors turned into one line pointing at --help. */
function readArgv(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const option = /^Unknown option '([^']+)'/.exec(message)?.[1];
    throw new ConfigError(option ? `unknown option ${option} (see miniclaw --help)` : `${message.split(". ")[0]} (see miniclaw --help)`);
  }
}

/** Options that make no sense with `command`, or together: a ConfigError saying where they go. */
function checkCombinations(command: string, values: Values): void {
  if (command === "help" || command === "version") return;
  if (values.continue && command !== "run") throw new ConfigError("--continue goes with miniclaw run (the REPL takes --session KEY)");
  if (values.continue && values.session !== undefined) throw new ConfigError("give --session KEY or --continue, not both");
  for (const flag of ["thinking", "effort", "max-iterations"] as const) {
    if (values[flag] !== undefined && !TURN_COMMANDS.has(command)) throw new ConfigError(`--${flag} goes with the REPL, miniclaw run and miniclaw cron`);
  }
  if (values.record !== undefined && command !== "run" && command !== "repl") throw new ConfigError("--record goes with miniclaw run and the REPL");
  if (values.tolerate !== undefined && command !== "replay") throw new ConfigError("--tolerate goes with miniclaw replay");
  for (const flag of ["transport", "env", "header", "yes"] as const) {
    if (values[flag] !== undefined && command !== "mcp") throw new ConfigError(`--${flag} goes with miniclaw mcp add (and -y with mcp remove)`);
  }
  if (values["output-format"] !== undefined && command !== "run") throw new ConfigError("--output-format goes with miniclaw run");
  if (values["output-format"] !== undefined && !["text", "json", "stream-json"].includes(values["output-format"])) throw new ConfigError("--output-format must be one of: text, json, stream-json");
  if (values["output-schema"] !== undefined && command !== "run") {
    throw new ConfigError("--output-schema goes with miniclaw run (a cron job names its outputSchema in cron.json)");
  }
}

/** What `--thinking`, `--effort` and `--max-iterations` set for every turn, over each agent's SOUL.md. */
export function turnFlags(args: CliArgs): { thinking?: ThinkingSetting; effort?: Effort; maxIterations?: number } {
  return given({ thinking: args.thinking, effort: args.effort, maxIterations: args.maxIterations });
}

/** What `--model`, `--agent` and `--permission-mode` set for the assistant a command opens. */
export function assistantFlags(args: CliArgs): { model?: string; defaultAgent?: string; permissionMode?: PermissionMode } {
  return given({ model: args.model, defaultAgent: args.agent, permissionMode: args.permissionMode });
}

/** The fields of `fields` that are set: an option absent stays absent rather than undefined. */
export function given<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** The value of a flag, or a ConfigError naming the flag and what is wrong with it. */
function checked<T>(flag: string, parsed: Parsed<T>): T {
  if (!parsed.ok) throw new ConfigError(`${flag} ${parsed.problem}`);
  return parsed.value;
}
