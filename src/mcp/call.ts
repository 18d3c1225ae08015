// One tools/call: a progress token (progress shown, and resetting the timeout up to a maximum), task-only tools as tasks, errors as one line.
import type { Client } from "@modelcontextprotocol/client";
import type { ToolContext } from "../tools/define.js";
import { DEFAULT_MCP_TIMEOUT_MS, type McpServerConfig } from "./config.js";
import type { McpCatalog } from "./catalog.js";
import { messageOf } from "../errors.js";
import { oneLine, seconds } from "./failure.js";
import { callAsTask } from "./task-call.js";

/** What `tools/call` answered, loosely typed: it comes from a program miniclaw does not control. */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
}

/** However often a server reports progress, a call ends after this long (or after its own timeout, when longer). */
export const MAX_MCP_CALL_MS = 10 * 60_000;

/**
 * Calls `tool` for `context`'s call. Each progress report is a `tool_progress` event and restarts the timeout, up to
 * MAX_MCP_CALL_MS in all; a task-only tool is called as a task. An interrupt cancels the call (the server is told); failures reject with one line.
 */
export async function callTool(client: Client, server: { name: string; config: McpServerConfig; catalog: McpCatalog }, tool: string, args: Record<string, unknown>, context: ToolContext, offeredName = tool): Promise<McpCallResult> {
  const timeout = server.config.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS;
  const options = {
    signal: context.signal,
    timeout,
    resetTimeoutOnProgress: true,
    maxTotalTimeout: Math.max(timeout, MAX_MCP_CALL_MS),
    onprogress: (p: { progress: number; total?: number | undefined; message?: string | undefined }) =>
      context.emit({ type: "tool_progress", id: context.toolUseId, name: offeredName, progress: p.progress, ...(p.total !== undefined && { total: p.total }), ...(p.message !== undefined && { message: p.message }) }),
  };
  const asTask = server.catalog.tools.find((t) => t.name === tool)?.taskSupport === "required";
  try {
    return asTask ? await callAsTask(client, tool, args, options) : ((await client.callTool({ name: tool, arguments: args }, options)) as McpCallResult);
  } catch (error) {
    if (context.signal.aborted) throw new Error(`cancelled: the call to ${server.name}/${tool} was interrupted`);
    const message = messageOf(error);
    if (/timed? ?out/i.test(message)) throw new Error(`the MCP server "${server.name}" did not answer ${tool} within ${seconds(timeout)}; the call was cancelled`);
    throw new Error(`the MCP server "${server.name}" failed during ${tool}: ${oneLine(message)}`);
  }
}
