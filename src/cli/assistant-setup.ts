// What the REPL, `run` and cron plug into their assistant: the MCP servers of mcp.json and the sessions' backend, closed with it.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startCliTelemetry } from "./telemetry.js";
import { openAssistant, type Assistant, type AssistantOptions } from "../assistant/assistant.js";
import type { McpHub } from "../mcp/hub.js";
import type { Elicit } from "../mcp/host.js";
import { openSessions, type OpenedSessions } from "./backends.js";
import { assistantFlags, type CliArgs } from "./args.js";
import type { CliIo } from "./io.js";
import { sandboxOf } from "./settings.js";

/** An assistant with what the command line plugged into it. */
export interface CliAssistant {
  assistant: Assistant;
  /** The servers of mcp.json, when it lists any: connected by the first turn that needs them. */
  mcp: McpHub | undefined;
  /** Closes the assistant, stops the servers, and closes the database; never rejects. */
  close(): Promise<void>;
}

/**
 * Opens a command's assistant; folder, environment and flags from `io` and `args` unless `options` gives them. MCP only for an mcp.json (roots: the
 * working folder and the workspace; `mcpHost.elicit` answers forms, else declined), PostgreSQL only for `--database-url` or MINICLAW_DATABASE_URL,
 * telemetry only with OTEL_EXPORTER_OTLP_ENDPOINT. ConfigError for a bad mcp.json, database or option.
 */
export async function openCliAssistant(args: CliArgs, io: CliIo, options: AssistantOptions, mcpHost?: { elicit?: Elicit }): Promise<CliAssistant> {
  const warn = options.onWarning ?? (() => {});
  const sandbox = await sandboxOf(args, io, options.workspace);
  const host = { roots: [options.cwd ?? io.cwd, options.workspace], ...(mcpHost?.elicit && { elicit: mcpHost.elicit }) };
  const telemetry = await startCliTelemetry(io.env);
  const mcp = existsSync(join(options.workspace, "mcp.json")) ? await (await import("../mcp/index.js")).openMcpHub(options.workspace, io.env, warn, host) : undefined;
  let opened: OpenedSessions | undefined;
  try {
    // A store given (a replay's own) is the caller's to close.
    opened = options.store ? { sessions: options.store, close: async () => {} } : await openSessions(args, io, options.workspace, { onWarning: warn, ...(options.clock && { clock: options.clock }) });
    const shell = sandbox === undefined ? {} : { shell: { sandbox } };
    const traced = telemetry && { turn: { ...options.turn, onEvent: telemetry.sink() } };
    const assistant = await openAssistant({ cwd: io.cwd, env: io.env, ...assistantFlags(args), ...options, ...shell, ...traced, store: opened.sessions, toolSources: [...(options.toolSources ?? []), ...(mcp ? [mcp] : [])] });
    // Said once, when bubblewrap has been probed (a short run, not waited for): commands then run unsandboxed.
    void assistant.runtime.notices().then((lines) => lines.forEach(warn));
    return {
      assistant,
      mcp,
      async close() {
        await assistant.close();
        await mcp?.close();
        await opened?.close();
        await telemetry?.shutdown();
      },
    };
  } catch (error) {
    await mcp?.close();
    await opened?.close();
    await telemetry?.shutdown();
    throw error;
  }
}
