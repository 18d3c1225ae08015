// Command-line arguments: the command, its words, and the options every command shares.
import { parseArgs } from "node:util";
import { ConfigError } from "../errors.js";
import { parseEffort, parseMaxIterations, parseThinking, type Parsed } from "../model/settings.js";
import { PERMISSION_MODES, type PermissionMode } from "../gate/context.js";
import type { Effort, ThinkingSetting } from "../types.js";
import { PROVIDERS, type Provider } from "../providers/model-names.js";
import { approvalEntries } from "./tool-flags.js";
import { COMMAND_HELP } from "./usage.js";

export { USAGE } from "./usage.js";

/** The command line, parsed: the command, the words after it, and the options. */
export interface CliArgs {
  command: "repl" | "run" | "cron" | "sessions" | "mcp" | "steer" | "db" | "demo" | "init" | "replay" | "help" | "version";
  /** Words after the command (`run MESSAGE...`, `sessions show KEY`, `cron run JOB`, `steer KEY TEXT...`). */
  words: string[];
  workspace?: string;
  model?: string;
  /** `--provider NAME`: where Claude runs (over MINICLAW_PROVIDER). */
  provider?: Provider;
  /** `--fallback-model ID`: the model a turn moves to when the primary stays overloaded (over SOUL.md's fallback_model). */
  fallbackModel?: string;
  agent?: string;
  session?: string;
  /** `-c`, `--continue`: run goes on in the session of the last `run`; the REPL reopens the last conversation. */
  continueLast: boolean;
  /** The REPL's `--resume KEY` (that session), or `--resume` alone (true: pick one of the recent ones). */
  resume?: string | true;
  /** `sessions show --all`: the whole file, compacted parts too. */
  all: boolean;
  /** `cron run JOB --force`: run a paused job anyway. */
  force: boolean;
  permissionMode?: PermissionMode;
  /** `--help` after a command (`steer --help`): that command's help, not the general one. */
  helpFor?: string;
  /** `--allowed-tools`, `--disallowed-tools`: entries added to the approvals lists for this process (see tool-flags.ts). */
  approvals?: { allowed: string[]; denied: string[] };
  /** `--append-system-prompt TEXT`: added to the end of every agent's system prompt. */
  appendSystemPrompt?: string;
  /** `--max-budget-usd N`: a turn stops once its estimated cost passes N dollars. */
  maxBudgetUsd?: number;
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
  /** `run --record FILE`, `--record FILE` (the REPL, `cron`, `cron run JOB`): a cassette of every request and response. */
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

const OPTIONS = {
  workspace: { type: "string" }, model: { type: "string" }, provider: { type: "string" }, "fallback-model": { type: "string" }, agent: { type: "string" }, session: { type: "string" }, "permission-mode": { type: "string" },
  thinking: { type: "string" }, effort: { type: "string" }, "max-iterations": { type: "string" }, "output-schema": { type: "string" }, "database-url": { type: "string" }, sandbox: { type: "string" }, record: { type: "string" }, tolerate: { type: "string" }, "output-format": { type: "string" },
  "allowed-tools": { type: "string", multiple: true }, allowedTools: { type: "string", multiple: true }, "disallowed-tools": { type: "string", multiple: true }, disallowedTools: { type: "string", multiple: true },
  "append-system-prompt": { type: "string" }, "max-budget-usd": { type: "string" }, resume: { type: "string" },
  transport: { type: "string", short: "t" }, env: { type: "string", short: "e", multiple: true }, header: { type: "string", short: "H", multiple: true }, yes: { type: "boolean", short: "y" },
  continue: { type: "boolean", short: "c", default: false }, all: { type: "boolean", default: false }, force: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false }, version: { type: "boolean", short: "v", default: false },
} as const;

type Values = ReturnType<typeof readArgv>["values"];

/** Parses argv (without node and the script). Throws ConfigError with a one-line message on bad input. */
export function parseCliArgs(argv: string[]): CliArgs {
  // `--resume` takes an optional KEY: the next word when it is not an option, else `--resume=` (pick one).
  const { values, positionals } = readArgv(argv.map((arg, i) => (arg !== "--resume" ? arg : argv[i + 1] === undefined || argv[i + 1]!.startsWith("-") ? "--resume=" : arg)));
  const mode = values["permission-mode"];
  if (mode !== undefined && !(PERMISSION_MODES as readonly string[]).includes(mode)) throw new ConfigError(`--permission-mode must be one of: ${MODES.join(", ")}`);
  if (values.sandbox !== undefined && !["off", "on", "auto"].includes(values.sandbox)) throw new ConfigError("--sandbox must be one of: on, auto, off");
  if (values.provider !== undefined && !(PROVIDERS as readonly string[]).includes(values.provider)) throw new ConfigError(`--provider must be one of: ${PROVIDERS.join(", ")}`);
  const first = positionals[0];
  if (values.help && first !== undefined && Object.hasOwn(COMMAND_HELP, first)) return { command: "help", helpFor: first, words: [], all: false, continueLast: false, force: false };
  const command = values.help ? "help" : values.version ? "version" : first && COMMANDS.has(first) ? first : "repl";
  if (command === "repl" && first !== undefined) throw new ConfigError(`unknown command "${first}" (see miniclaw --help; to send a message use: miniclaw run "${first} ...")`);
  checkCombinations(command, values, positionals.slice(1));
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
      provider: values.provider as Provider | undefined,
      fallbackModel: values["fallback-model"],
      agent: values.agent,
      session: values.session === undefined ? undefined : checkSessionKey(values.session, "--session"),
      resume: values.resume === undefined ? undefined : values.resume === "" ? true : values.resume,
      approvals: approvalsOf(values),
      appendSystemPrompt: values["append-system-prompt"],
      maxBudgetUsd: values["max-budget-usd"] === undefined ? undefined : budgetOf(values["max-budget-usd"]),
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

/** A key the CLI will create a session under: no blanks, or every line naming it to type again (`--session KEY`) would need quotes. Existing keys are found as they are (`--resume`, `show`). */
export function checkSessionKey(key: string, where: string): string {
  if (key.trim() === "") throw new ConfigError(`${where}: the session key is empty`);
  if (/[\s\p{Cc}]/u.test(key)) throw new ConfigError(`${where} "${key.replace(/[\p{Cc}]/gu, "?")}": a session key has no blanks or control characters (use - or _, e.g. agent:main:my-notes)`);
  return key;
}

/** The approvals lists of `--allowed-tools` and `--disallowed-tools` (either spelling), or undefined when neither is given. */
function approvalsOf(values: Values): CliArgs["approvals"] {
  const allowed = [...(values["allowed-tools"] ?? []), ...(values.allowedTools ?? [])];
  const denied = [...(values["disallowed-tools"] ?? []), ...(values.disallowedTools ?? [])];
  if (allowed.length === 0 && denied.length === 0) return undefined;
  return { allowed: approvalEntries(allowed, "allowed"), denied: approvalEntries(denied, "denied") };
}

function budgetOf(raw: string): number {
  const value = Number(raw.trim().replace(/^\$/, ""));
  if (raw.trim() === "" || !Number.isFinite(value) || value <= 0) throw new ConfigError(`--max-budget-usd must be a positive number of dollars, such as 0.50, got "${raw}"`);
  return value;
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

type Place = [flags: ReadonlyArray<keyof Values>, takes: (command: string, words: string[]) => boolean, where: string];

/** The options only some commands take, in the order they are checked; the tool lists and the prompt go with what a person starts, as with Claude Code (cron's jobs are set in cron.json). */
const PLACES: readonly Place[] = [
  [["continue"], (command) => command === "run" || command === "repl", "miniclaw run and the REPL"],
  [["resume"], (command) => command === "repl", "the REPL (miniclaw run takes --session KEY or --continue)"],
];
const LATER_PLACES: readonly Place[] = [
  [["allowed-tools", "disallowed-tools", "append-system-prompt"], (command) => ["repl", "run", "demo"].includes(command), "the REPL and miniclaw run"],
  [["max-budget-usd", "thinking", "effort", "max-iterations"], (command) => ["repl", "run", "cron", "demo"].includes(command), "the REPL, miniclaw run and miniclaw cron"],
  [["record"], (command, words) => command === "run" || command === "repl" || (command === "cron" && (words.length === 0 || words[0] === "run")), "miniclaw run, the REPL, miniclaw cron and cron run JOB"],
  [["tolerate"], (command) => command === "replay", "miniclaw replay"],
  [["transport", "env", "header", "yes"], (command) => command === "mcp", "miniclaw mcp add (and -y with mcp remove)"],
  [["output-format"], (command) => command === "run", "miniclaw run"],
  [["output-schema"], (command) => command === "run", "miniclaw run (a cron job names its outputSchema in cron.json)"],
];

/** Options that make no sense with `command`, or together: a ConfigError saying where they go. */
function checkCombinations(command: string, values: Values, words: string[]): void {
  if (command === "help" || command === "version") return;
  const check = (places: readonly Place[]): void => {
    for (const [flags, takes, where] of places) {
      const flag = flags.find((name) => values[name] !== undefined && values[name] !== false);
      if (flag !== undefined && !takes(command, words)) throw new ConfigError(`--${flag} goes with ${where}`);
    }
  };
  check(PLACES);
  const chosen = [values.session !== undefined && "--session KEY", values.continue && "--continue", values.resume !== undefined && "--resume"].filter(Boolean);
  if (chosen.length > 1) throw new ConfigError(`give ${chosen.slice(0, -1).join(", ")} or ${chosen.at(-1)}, not ${chosen.length === 2 ? "both" : "all three"}`);
  check(LATER_PLACES);
  if (values["output-format"] !== undefined && !["text", "json", "stream-json"].includes(values["output-format"])) throw new ConfigError("--output-format must be one of: text, json, stream-json");
}

/** What `--thinking`, `--effort`, `--max-iterations` and `--max-budget-usd` set for every turn, over each agent's SOUL.md. */
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

/** The value of a flag, or a ConfigError naming the flag and what is wrong with it. */
function checked<T>(flag: string, parsed: Parsed<T>): T {
  if (!parsed.ok) throw new ConfigError(`${flag} ${parsed.problem}`);
  return parsed.value;
}
