// A call of a tool that runs only as a task: created with `tools/call` and `task`, polled with `tasks/get`, answered by `tasks/result`.
import type { Client, RequestOptions } from "@modelcontextprotocol/client";
import * as z from "zod";
import type { McpCallResult } from "./mcp-result.js";

/** How long the server keeps a task's result for us. */
const TASK_TTL_MS = 10 * 60_000;
/** Between polls when the server names no interval; never faster than the floor. */
const DEFAULT_POLL_MS = 1_000;
const MIN_POLL_MS = 100;

const TaskShape = z.looseObject({ taskId: z.string(), status: z.string(), statusMessage: z.string().optional(), pollInterval: z.number().optional() });
const CreatedTask = z.looseObject({ task: TaskShape });
const AnyResult = z.looseObject({});

/**
 * Calls `name` as a task and waits for its result: the status is polled at the server's interval; a task that fails or
 * is cancelled rejects with its message; `signal` cancels the task (`tasks/cancel`). `options` apply to each request.
 */
export async function callAsTask(client: Client, name: string, args: Record<string, unknown>, options: RequestOptions & { signal: AbortSignal }): Promise<McpCallResult> {
  const created = await client.request({ method: "tools/call", params: { name, arguments: args, task: { ttl: TASK_TTL_MS } } }, CreatedTask, options);
  let task = created.task;
  const cancel = (): void => void client.request({ method: "tasks/cancel", params: { taskId: task.taskId } }, AnyResult).catch(() => undefined);
  options.signal.addEventListener("abort", cancel, { once: true });
  try {
    while (task.status === "working" || task.status === "submitted" || task.status === "input_required") {
      await sleep(Math.max(MIN_POLL_MS, task.pollInterval ?? DEFAULT_POLL_MS), options.signal);
      task = await client.request({ method: "tasks/get", params: { taskId: task.taskId } }, TaskShape, options);
    }
    if (task.status !== "completed") throw new Error(`the task ${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ""}`);
    return (await client.request({ method: "tasks/result", params: { taskId: task.taskId } }, AnyResult, options)) as McpCallResult;
  } finally {
    options.signal.removeEventListener("abort", cancel);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", stop, { once: true });
  });
}
