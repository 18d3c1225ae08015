// A call of a tool that runs only as a task: created with `tools/call` and `task`, polled with `tasks/get`, answered by `tasks/result`.
import { setTimeout as sleep } from "node:timers/promises";
import type { Client, RequestOptions } from "@modelcontextprotocol/client";
import * as z from "zod";
import type { McpCallResult } from "./call.js";

/** How long the server keeps a task's result for us. */
const TASK_TTL_MS = 10 * 60_000;
/** Between polls when the server names no interval; never faster than the floor. */
const DEFAULT_POLL_MS = 1_000;
const MIN_POLL_MS = 100;

const TaskShape = z.looseObject({ taskId: z.string(), status: z.string(), statusMessage: z.string().optional(), pollInterval: z.number().optional() });
const CreatedTask = z.looseObject({ task: TaskShape });
const AnyResult = z.looseObject({});

/** Calls `name` as a task, polled at the server's interval; a failed or cancelled task rejects with its message; `signal` sends `tasks/cancel`. */
export async function callAsTask(client: Client, name: string, args: Record<string, unknown>, options: RequestOptions & { signal: AbortSignal }): Promise<McpCallResult> {
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
