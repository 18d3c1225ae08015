// What the REPL, `run` and cron plug into their assistants: the sandbox (--sandbox, MINICLAW_SANDBOX, settings.json), the MCP servers of mcp.json,
// telemetry (OTLP, only when OTEL_EXPORTER_OTLP_ENDPOINT is set) and the sessions' backend, closed with them.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { nonEmpty } from "../model/credentials.js";
import * as z from "zod";
import { openAssistant, type Assistant, type AssistantOptions } from "../assistant/assistant.js";
import { checkConfig, parseJsonConfig, readConfigText } from "../fs/config-file.js";
import type { McpHub } from "../mcp/hub.js";
import type { McpHubHost } from "../mcp/index.js";
import type { SandboxOption } from "../shell/index.js";
import type { EventSink } from "../types.js";
import { openSessions, type OpenedSessions } from "./backends.js";
import { assistantFlags, type CliArgs } from "./args.js";
import type { CliIo } from "./io.js";

const setting = z.enum(["off", "on", "auto"], { error: "must be off, on or auto" });
/** The workspace's settings.json: the sandbox, for now. */
const SETTINGS = z.strictObject({
  sandbox: z
    .union([setting, z.strictObject({ mode: setting, network: z.enum(["allow", "deny"], { error: "must be allow or deny" }).optional() })], {
      error: 'must be off, on or auto, or { "mode": ..., "network": "allow" | "deny" }',
    })
    .optional(),
});

/**
 * The sandbox of a command: `--sandbox`, else MINICLAW_SANDBOX, else `<workspace>/settings.json`'s `sandbox` (its `network`, for approved commands,
 * holds whichever gives the mode), else on. A bad settings.json is a one-line ConfigError naming the file and the field.
 */
export async function sandboxOf(args: Pick<CliArgs, "sandbox">, io: Pick<CliIo, "env">, workspace: string): Promise<SandboxOption | undefined> {
  const path = join(workspace, "settings.json");
  const text = await readConfigText(path, { optional: true });
  const file = text === undefined ? undefined : checkConfig(SETTINGS, parseJsonConfig(text, path), path).sandbox;
  const network = typeof file === "object" ? file.network : undefined;
  const mode = args.sandbox ?? nonEmpty(io.env["MINICLAW_SANDBOX"]) ?? (typeof file === "object" ? file.mode : file);
  if (mode === undefined) return network === undefined ? undefined : { mode: "on", network };
  return network === undefined ? (mode as SandboxOption) : { mode: mode as "off" | "on" | "auto", network };
}

/** What a command plugs into every assistant it opens (`options`: the sandbox and the servers as a tool source), the servers, the spans' sinks; `close` stops them. */
export interface CliPlugins {
  options: Pick<AssistantOptions, "shell" | "toolSources">;
  mcp: McpHub | undefined;
  /** Spans of the command's turns, one sink per `scope` (a cron job's runs may overlap another's); undefined without telemetry. */
  telemetry: ((scope?: string) => EventSink) | undefined;
  close(): Promise<void>;
}

/** Opens what `workspace`'s commands plug in; the MCP module only for an mcp.json (`host`: its roots and forms), telemetry's only when exporting. ConfigError for a bad file. */
export async function openPlugins(args: CliArgs, io: CliIo, workspace: string, warn: (message: string) => void, host: McpHubHost = {}): Promise<CliPlugins> {
  const sandbox = await sandboxOf(args, io, workspace);
  const exporting = Boolean(io.env["OTEL_EXPORTER_OTLP_ENDPOINT"]?.trim() || io.env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]?.trim());
  // The servers' settings first: a bad mcp.json throws before an exporter is started that nothing would stop.
  const mcp = existsSync(join(workspace, "mcp.json")) ? await (await import("../mcp/index.js")).openMcpHub(workspace, io.env, warn, host) : undefined;
  const telemetry = exporting ? await import("../telemetry/index.js") : undefined;
  const exported = await telemetry?.startOtlpExport(io.env);
  const sinks = new Map<string, EventSink>();
  const content = io.env["MINICLAW_OTEL_CONTENT"] === "1";
  const sink = (scope = ""): EventSink => sinks.get(scope) ?? sinks.set(scope, telemetry!.traceTurns({ content })).get(scope)!;
  return {
    options: { ...(sandbox !== undefined && { shell: { sandbox } }), toolSources: mcp ? [mcp] : [] },
    mcp,
    telemetry: exported ? sink : undefined,
    async close() {
      await mcp?.close();
      await exported?.shutdown();
    },
  };
}

/** An assistant with what the command line plugged into it. */
export interface CliAssistant {
  assistant: Assistant;
  /** The servers of mcp.json, when it lists any: connected by the first turn that needs them. */
  mcp: McpHub | undefined;
  /** The sandbox and the servers, for other assistants the command opens (a replayed cron run's). */
  plugged: CliPlugins["options"];
  /** Closes the assistant, stops the servers, and closes the database; never rejects. */
  close(): Promise<void>;
}

/**
 * Opens a command's assistant; folder, environment and flags from `io` and `args` unless `options` gives them. MCP only for an mcp.json (roots: the
 * working folder and the workspace; `mcpHost.elicit` answers forms, else declined), PostgreSQL only for `--database-url` or MINICLAW_DATABASE_URL,
 * telemetry only with OTEL_EXPORTER_OTLP_ENDPOINT. ConfigError for a bad mcp.json, database or option.
 */
export async function openCliAssistant(args: CliArgs, io: CliIo, options: AssistantOptions, mcpHost: Pick<McpHubHost, "elicit"> = {}): Promise<CliAssistant> {
  const warn = options.onWarning ?? (() => {});
  const plugins = await openPlugins(args, io, options.workspace, warn, { roots: [options.cwd ?? io.cwd, options.workspace], ...mcpHost });
  let opened: OpenedSessions | undefined;
  try {
    // A store given (a replay's own) is the caller's to close.
    opened = options.store ? { sessions: options.store, close: async () => {} } : await openSessions(args, io, options.workspace, { onWarning: warn, ...(options.clock && { clock: options.clock }) });
    const traced = plugins.telemetry && { turn: { ...options.turn, onEvent: plugins.telemetry() } };
    const toolSources = [...(options.toolSources ?? []), ...(plugins.options.toolSources ?? [])];
    const assistant = await openAssistant({ cwd: io.cwd, env: io.env, ...assistantFlags(args), ...options, ...plugins.options, ...traced, store: opened.sessions, toolSources });
    // Said once, when bubblewrap has been probed (a short run, not waited for): commands then run unsandboxed.
    void assistant.runtime.notices().then((lines) => lines.forEach(warn));
    const close = async (): Promise<void> => {
      await assistant.close();
      await opened?.close();
      await plugins.close();
    };
    return { assistant, mcp: plugins.mcp, plugged: plugins.options, close };
  } catch (error) {
    await opened?.close();
    await plugins.close();
    throw error;
  }
}
