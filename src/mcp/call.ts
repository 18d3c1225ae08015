// One tools/call: a progress token (progress shown, and resetting the timeout up to a maximum), task-only tools as tasks
// (created with `tools/call` and `task`, polled with `tasks/get`, answered by `tasks/result`), errors as one line.
import { setTimeout as sleep } from "node:timers/promises";
import type { Client, RequestOptions } from "@modelcontextprotocol/client";
import * as z from "zod";
import type { ToolContext } from "../tools/define.js";
import { DEFAULT_MCP_TIMEOUT_MS, type McpServerConfig } from "./config.js";
import type { McpCatalog } from "./catalog.js";
import { messageOf } from "../errors.js";
import { oneLine, seconds } from "./failure.js";

/** What `tools/call` answered, loosely typed: it comes from a program miniclaw does not control. */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
}

/** However often a server reports progress, a call ends after this long (or after its own timeout, when longer). */
export const MAX_MCP_CALL_MS = 10 * 60_000;
/** How long the server keeps a task's result for us. */
const TASK_TTL_MS = 10 * 60_000;
/** Between polls when the server names no interval; never faster than the floor. */
const DEFAULT_POLL_MS = 1_000;
const MIN_POLL_MS = 100;

const TaskShape = z.looseObject({ taskId: z.string(), status: z.string(), statusMessage: z.string().optional(), pollInterval: z.number().optional() });
const CreatedTask = z.looseObject({ task: TaskShape });
const AnyResult = z.looseObject({});

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

/** Calls `name` as a task, polled at the server's interval; a failed or cancelled task rejects with its message; `signal` sends `tasks/cancel`. */
async function callAsTask(client: Client, name: string, args: Record<string, unknown>, options: RequestOptions & { signal: AbortSignal }): Promise<McpCallResult> {
  const created = await client.request({ method: "tools/call", params: { name, arguments: args, task: { ttl: TASK_TTL_MS } } }, CreatedTask, options);
  let task = created.task;
  const cancel = (): void => void client.request({ method: "tasks/cancel", params: { taskId: task.taskId } }, AnyResult).catch(() => undefined);
  options.signal.addEventListener("abort", cancel, { once: true });
  try {
    while (task.status === "working" || task.status === "submitted" || task.status === "input_required") {
      await sleep(Math.max(MIN_POLL_MS, task.pollInterval ?? DEFAULT_POLL_MS), undefined, { signal: options.signal });
      task = await client.request({ method: "tasks/get", params: { taskId: task.taskId } }, TaskShape, options);
    }
    if (task.status !== "completed") throw new Error(`the task ${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ""}`);
    return (await client.request({ method: "tasks/result", params: { taskId: task.taskId } }, AnyResult, options)) as McpCallResult;
  } finally {
    options.signal.removeEventListener("abort", cancel);
  }
}
