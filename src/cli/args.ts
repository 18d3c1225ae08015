// Command-line arguments: one table of options (node:util's spec, the commands that take each, the field each sets), read into the command, its words and the options.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { ConfigError } from "../errors.js";
import { parseEffort, parseMaxIterations, parseThinking, type Parsed } from "../model/settings.js";
import type { PermissionMode } from "../gate/context.js";
import type { Effort, ThinkingSetting } from "../types.js";
import { PROVIDERS } from "../providers/model-names.js";
import { approvalEntries } from "./tool-flags.js";

/** The commands; with no command, the REPL. */
const COMMANDS = ["run", "cron", "sessions", "mcp", "steer", "db", "demo", "init", "replay", "help"] as const;

/** Which commands take an option, and the words its refusal (`--X goes with ...`) names them by. */
type Place = readonly [takes: (command: string, words: string[]) => boolean, where: string];
const among = (commands: readonly string[], where: string): Place => [(command) => commands.includes(command), where];
// The tool lists and the prompt go with what a person starts, as with Claude Code (cron's jobs are set in cron.json).
const STARTED = among(["repl", "run", "demo"], "the REPL and miniclaw run");
const TURNS = among(["repl", "run", "cron", "demo"], "the REPL, miniclaw run and miniclaw cron");
const MCP_ADD: Place = [(command, words) => command === "mcp" && words[0] === "add", "miniclaw mcp add"];
const MCP_CHANGE: Place = [(command, words) => command === "mcp" && (words[0] === "add" || words[0] === "remove"), "miniclaw mcp add and mcp remove"];
const RECORDING: Place = [
  (command, words) => command === "run" || command === "repl" || (command === "cron" && (words.length === 0 || words[0] === "run")),
  "miniclaw run, the REPL, miniclaw cron and cron run JOB",
];

/** One option: node:util's spec; the commands that take it (absent: all); the CliArgs field it sets, as given or as `parse` reads it (a ConfigError naming the flag); `early`: checked before --help. */
type OptionSpec = NonNullable<ParseArgsConfig["options"]>[string] & { place?: Place; field?: string; early?: boolean; parse?(raw: string, flag: string): unknown };

/** `--output-format`'s values. */
const FORMATS = ["text", "json", "stream-json"] as const;
/** The modes in the order a person meets them: the default first, the one that asks nothing last. */
const MODES: readonly PermissionMode[] = ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"];

/** Every option (usage.ts says what each does); misplaced ones are refused in this order. */
const OPTIONS = {
  workspace: { type: "string", field: "workspace" },
  model: { type: "string", field: "model" },
  "fallback-model": { type: "string", field: "fallbackModel", place: TURNS },
  agent: { type: "string", field: "agent" },
  session: { type: "string", field: "session", parse: checkSessionKey },
  continue: { type: "boolean", short: "c", default: false, place: among(["run", "repl"], "miniclaw run and the REPL") },
  /** `--resume KEY`, or `--resume` alone (true: pick one of the recent ones). */
  resume: { type: "string", field: "resume", parse: (key: string) => (key === "" ? true : key), place: among(["repl"], "the REPL (miniclaw run takes --session KEY or --continue)") },
  "permission-mode": { type: "string", field: "permissionMode", parse: oneOf(MODES), early: true },
  "allowed-tools": { type: "string", multiple: true, place: STARTED },
  "disallowed-tools": { type: "string", multiple: true, place: STARTED },
  "append-system-prompt": { type: "string", field: "appendSystemPrompt", place: STARTED },
  "max-budget-usd": { type: "string", field: "maxBudgetUsd", parse: budgetOf, place: TURNS },
  thinking: { type: "string", field: "thinking", parse: setting(parseThinking), place: TURNS },
  effort: { type: "string", field: "effort", parse: setting(parseEffort), place: TURNS },
  "max-iterations": { type: "string", field: "maxIterations", parse: setting(parseMaxIterations), place: TURNS },
  "database-url": { type: "string", field: "databaseUrl" },
  sandbox: { type: "string", field: "sandbox", parse: oneOf(["on", "auto", "off"] as const), early: true },
  provider: { type: "string", field: "provider", parse: oneOf(PROVIDERS), early: true },
  record: { type: "string", field: "record", place: RECORDING },
  /** `replay --tolerate system,tools`: request fields whose changes are no difference. */
  tolerate: { type: "string", field: "tolerate", parse: (raw: string) => raw.split(",").map((field) => field.trim()).filter(Boolean), place: among(["replay"], "miniclaw replay") },
  /** `mcp add`: `--transport stdio|http|sse`, `-e KEY=VALUE` (stdio), `-H "Name: value"` (http); `-y`: no question before writing mcp.json. */
  transport: { type: "string", short: "t", field: "mcpTransport", place: MCP_ADD },
  env: { type: "string", short: "e", multiple: true, field: "mcpEnv", place: MCP_ADD },
  header: { type: "string", short: "H", multiple: true, field: "mcpHeaders", place: MCP_ADD },
  yes: { type: "boolean", short: "y", field: "yes", place: MCP_CHANGE },
  "output-format": { type: "string", field: "outputFormat", parse: oneOf(FORMATS), place: among(["run"], "miniclaw run") },
  /** `run --output-schema FILE`: the JSON Schema file of the structured answer, as given. */
  "output-schema": { type: "string", field: "outputSchema", place: among(["run"], "miniclaw run (a cron job names its outputSchema in cron.json)") },
  allowedTools: { type: "string", multiple: true },
  disallowedTools: { type: "string", multiple: true },
  all: { type: "boolean", default: false },
  force: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
  version: { type: "boolean", short: "v", default: false },
} as const satisfies Record<string, OptionSpec>;

type Table = typeof OPTIONS;
/** The fields the table sets, each optional: as given, or what its `parse` returns. */
type OptionFields = {
  [K in keyof Table as Table[K] extends { field: infer F extends string } ? F : never]?: Table[K] extends { parse(raw: string, flag: string): infer V }
    ? V
    : Table[K] extends { type: "boolean" } ? boolean : Table[K] extends { multiple: true } ? string[] : string;
};

/** The command line, parsed: the command, the words after it (`run MESSAGE...`, `sessions show KEY`, `steer KEY TEXT...`), and the options. */
export type CliArgs = OptionFields & {
  command: (typeof COMMANDS)[number] | "repl" | "version";
  words: string[];
  /** `-c`, `--continue`: run goes on in the session of the last `run`; the REPL reopens the last conversation. */
  continueLast: boolean;
  /** `sessions show --all`: the whole file, compacted parts too; `cron run JOB --force`: run a paused job anyway. */
  all: boolean;
  force: boolean;
  /** `--help` after a command (`steer --help`): that command's help, not the general one. */
  helpFor?: string;
  /** `--allowed-tools`, `--disallowed-tools` (either spelling): entries added to the approvals lists for this process (see tool-flags.ts). */
  approvals?: { allowed: string[]; denied: string[] };
  /** The command line as given, less `--record FILE`: what a cassette keeps, for `miniclaw replay` to run again. */
  argv?: string[];
};

type Values = Record<string, string | boolean | string[] | undefined>;

/** Parses argv (without node and the script). Throws ConfigError with a one-line message on bad input. */
export function parseCliArgs(argv: string[]): CliArgs {
  // `--resume` takes an optional KEY: the next word when it is not an option, else `--resume=` (pick one).
  const { values, positionals } = readArgv(argv.map((arg, i) => (arg !== "--resume" ? arg : argv[i + 1] === undefined || argv[i + 1]!.startsWith("-") ? "--resume=" : arg)));
  const specs = Object.entries(OPTIONS) as Array<[string, OptionSpec]>;
  for (const [flag, spec] of specs) if (spec.early && typeof values[flag] === "string") spec.parse?.(values[flag], `--${flag}`);
  const first = positionals[0];
  const named = (COMMANDS as readonly string[]).includes(first ?? "") ? first : undefined;
  if (values["help"] && named !== undefined && named !== "help") return { command: "help", helpFor: named, words: [], all: false, continueLast: false, force: false };
  const command = values["help"] ? "help" : values["version"] ? "version" : (named ?? "repl");
  if (command === "repl" && first !== undefined) throw new ConfigError(`unknown command "${first}" (see miniclaw --help; to send a message use: miniclaw run "${first} ...")`);
  const words = command === "repl" || command === "help" || command === "version" ? [] : positionals.slice(1);
  if (command !== "help" && command !== "version") checkPlaces(specs, command, values, positionals.slice(1));
  const fields: Record<string, unknown> = {};
  for (const [flag, { field, parse }] of specs) {
    const raw = values[flag];
    if (field !== undefined && raw !== undefined) fields[field] = parse && typeof raw === "string" ? parse(raw, `--${flag}`) : raw;
  }
  const flags = { all: values["all"] === true, continueLast: values["continue"] === true, force: values["force"] === true };
  return { ...(fields as OptionFields), ...flags, command: command as CliArgs["command"], words, argv: withoutRecord(argv), ...given({ approvals: approvalsOf(values) }) };
}

/** A key the CLI will create a session under: no blanks, or every line naming it to type again (`--session KEY`) would need quotes. Existing keys are found as they are (`--resume`, `show`). */
export function checkSessionKey(key: string, where: string): string {
  if (key.trim() === "") throw new ConfigError(`${where}: the session key is empty`);
  if (/[\s\p{Cc}]/u.test(key)) throw new ConfigError(`${where} "${key.replace(/[\p{Cc}]/gu, "?")}": a session key has no blanks or control characters (use - or _, e.g. agent:main:my-notes)`);
  return key;
}

/** The approvals lists of `--allowed-tools` and `--disallowed-tools` (either spelling), or undefined when neither is given. */
function approvalsOf(values: Values): CliArgs["approvals"] {
  const list = (...flags: string[]): string[] => flags.flatMap((flag) => (values[flag] as string[] | undefined) ?? []);
  const [allowed, denied] = [list("allowed-tools", "allowedTools"), list("disallowed-tools", "disallowedTools")];
  if (allowed.length === 0 && denied.length === 0) return undefined;
  return { allowed: approvalEntries(allowed, "allowed"), denied: approvalEntries(denied, "denied") };
}

function budgetOf(raw: string): number {
  const value = Number(raw.trim().replace(/^\$/, ""));
  if (raw.trim() === "" || !Number.isFinite(value) || value <= 0) throw new ConfigError(`--max-budget-usd must be a positive number of dollars, such as 0.50, got "${raw}"`);
  return value;
}

/** A value of `choices`, or a ConfigError listing them. */
function oneOf<T extends string>(choices: readonly T[]): (raw: string, flag: string) => T {
  return (raw, flag) => {
    if (!(choices as readonly string[]).includes(raw)) throw new ConfigError(`${flag} must be one of: ${choices.join(", ")}`);
    return raw as T;
  };
}

/** A model setting's value, or a ConfigError naming the flag and what is wrong with it. */
function setting<T>(parse: (raw: unknown) => Parsed<T>): (raw: string, flag: string) => T {
  return (raw, flag) => {
    const parsed = parse(raw);
    if (!parsed.ok) throw new ConfigError(`${flag} ${parsed.problem}`);
    return parsed.value;
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
function readArgv(argv: string[]): { values: Values; positionals: string[] } {
  try {
    return parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const option = /^Unknown option '([^']+)'/.exec(message)?.[1];
    throw new ConfigError(option ? `unknown option ${option} (see miniclaw --help)` : `${message.split(". ")[0]} (see miniclaw --help)`);
  }
}

/** Options that make no sense with `command`, or together: a ConfigError saying where they go. */
function checkPlaces(specs: ReadonlyArray<[string, OptionSpec]>, command: string, values: Values, words: string[]): void {
  for (const [flag, { place }] of specs) {
    if (place && values[flag] !== undefined && values[flag] !== false && !place[0](command, words)) throw new ConfigError(`--${flag} goes with ${place[1]}`);
    if (flag !== "resume") continue;
    const chosen = [values["session"] !== undefined && "--session KEY", values["continue"] && "--continue", values["resume"] !== undefined && "--resume"].filter(Boolean);
    if (chosen.length > 1) throw new ConfigError(`give ${chosen.slice(0, -1).join(", ")} or ${chosen.at(-1)}, not ${chosen.length === 2 ? "both" : "all three"}`);
  }
}

/** What `--thinking`, `--effort`, `--max-iterations`, `--max-budget-usd` and `--fallback-model` set for every turn, over each agent's SOUL.md. */
export function turnFlags(args: CliArgs): { thinking?: ThinkingSetting; effort?: Effort; maxIterations?: number; maxBudgetUsd?: number; fallbackModel?: string } {
  return given({ thinking: args.thinking, effort: args.effort, maxIterations: args.maxIterations, maxBudgetUsd: args.maxBudgetUsd, fallbackModel: args.fallbackModel });
}

/** What `--model`, `--agent`, `--permission-mode`, the tool lists and `--append-system-prompt` set for the assistant a command opens. */
export function assistantFlags(args: CliArgs): { model?: string; defaultAgent?: string; permissionMode?: PermissionMode; approvals?: { allowed: string[]; denied: string[] }; appendSystemPrompt?: string } {
  return given({ model: args.model, defaultAgent: args.agent, permissionMode: args.permissionMode, approvals: args.approvals, appendSystemPrompt: args.appendSystemPrompt });
}

/** The fields of `fields` that are set: an option absent stays absent rather than undefined. */
export function given<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
