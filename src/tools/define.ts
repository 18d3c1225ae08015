// defineTool: a tool from a zod object schema, with the JSON schema the API sees derived from it.
import * as z from "zod";
import type Anthropic from "@anthropic-ai/sdk";
import type { Clock, Spawn } from "../deps.js";
import type { EventSink } from "../types.js";
import type { PermissionContext } from "../gate/context.js";

/** What a tool returns: plain text, or content blocks (text and images). */
export type ToolOutput = string | Array<Anthropic.TextBlockParam | Anthropic.ImageBlockParam>;

/** The effects a tool may use; every one of them is injected by the loop. */
export interface ToolContext {
  /** Working directory: relative paths and commands start here. */
  cwd: string;
  /** The workspace folder (agents, sessions, memory, approvals). */
  workspace: string;
  /** Aborted when the user interrupts the turn; long work must stop on it. */
  signal: AbortSignal;
  clock: Clock;
  spawn: Spawn;
  /** Environment for child processes, already stripped of secrets. */
  env: Record<string, string | undefined>;
  emit: EventSink;
  /** The id of the tool_use this call answers. */
  toolUseId: string;
  /** The gate: command safety, approvals and allowed roots. */
  permissions: PermissionContext;
  /**
   * What the gate granted this call; the dispatcher asks the gate before `run` and sets it.
   * Absent when `run` is called directly: a tool with a `permission` rule then refuses to run.
   */
  grant?: Grant;
}

/** Which of the gate's own rules judges a call: the command gate, or the path rule (roots, protected files). */
export type PermissionRule = { command: string } | { path: string; access: "read" | "write" };

/** What the gate granted one call. */
export interface Grant {
  /** True when the call was judged read-only: a command judged safe runs in the read-only sandbox. */
  readOnly: boolean;
  /** Under the path rule: the real path judged (symlinks and `..` resolved), to be used instead of the input's. */
  path?: string;
}

/** Whether a call needs the user's approval: fixed, or decided from the parsed input. */
export type NeedsApproval<I> = boolean | ((input: I, context: ToolContext) => boolean | Promise<boolean>);

/** A tool as the loop holds it. Data, not a class. */
export interface Tool<I = unknown> {
  name: string;
  description: string;
  /** The zod schema the model's input is validated against before `run`. */
  input: z.ZodType<I>;
  /** JSON schema sent to the API, derived from `input` once at definition. */
  inputSchema: Anthropic.Tool.InputSchema;
  /**
   * True when a call has no effect beyond reading, so it may run concurrently with
   * other read-only calls. A function decides per input (a safe command is read-only).
   */
  readOnly: boolean | ((input: I) => boolean);
  /**
   * True when a call must be approved before it runs: the approver is asked (an "always" answer
   * saves the tool's name in exec-approvals.json), `run` and cron refuse it. Plan mode refuses
   * every call that is not read-only, whatever this says.
   */
  needsApproval: NeedsApproval<I>;
  /**
   * True when, on an interrupt, the dispatcher waits for `run` (which stops promptly on the signal) instead
   * of answering at once: a delegate, whose child turn then ends, with its own events, before the parent's.
   */
  waitsOnInterrupt?: boolean;
  /** For tools that run commands or touch paths: the gate's rule that judges each call, instead of `needsApproval`. */
  permission?: ((input: I) => PermissionRule) | undefined;
  /** Runs the tool, after the gate allowed the call. A throw becomes an is_error result carrying its message. */
  run(input: I, context: ToolContext): Promise<ToolOutput> | ToolOutput;
}

/** What `defineTool` takes. */
export interface ToolSpec<S extends z.ZodObject> {
  name: string;
  description: string;
  input: S;
  readOnly?: boolean | ((input: z.infer<S>) => boolean);
  needsApproval?: NeedsApproval<z.infer<S>>;
  permission?: (input: z.infer<S>) => PermissionRule;
  run(input: z.infer<S>, context: ToolContext): Promise<ToolOutput> | ToolOutput;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Defines a tool from a zod object schema. Approval is declared here, never asked from `run`:
 * `readOnly` (may run alongside other read-only calls, and in plan mode), `needsApproval`, or a
 * `permission` rule. Throws at definition time (not at call time) when the name is not one the
 * API accepts or the schema is not an object.
 */
export function defineTool<S extends z.ZodObject>(spec: ToolSpec<S>): Tool<z.infer<S>> {
  if (!TOOL_NAME.test(spec.name)) {
    throw new TypeError(`defineTool: name "${spec.name}" must match ${TOOL_NAME} (letters, digits, _ and -, at most 64)`);
  }
  if (!(spec.input instanceof z.ZodObject)) {
    throw new TypeError(`defineTool(${spec.name}): input must be a z.object(...) schema`);
  }
  const json = jsonSchemaOf(spec.input);
  return {
    name: spec.name,
    description: spec.description,
    input: spec.input as unknown as z.ZodType<z.infer<S>>,
    inputSchema: { ...json, type: "object" } as Anthropic.Tool.InputSchema,
    readOnly: spec.readOnly ?? false,
    needsApproval: spec.needsApproval ?? false,
    permission: spec.permission,
    run: spec.run,
  };
}

/**
 * The JSON Schema of a tool's input, converted once per schema object: the built-in tools are
 * defined again for every turn, and the conversion costs about a millisecond a turn.
 */
const jsonSchemas = new WeakMap<z.ZodObject, Record<string, unknown>>();

function jsonSchemaOf(input: z.ZodObject): Record<string, unknown> {
  let json = jsonSchemas.get(input);
  if (json === undefined) {
    json = z.toJSONSchema(input, { target: "draft-2020-12", io: "input" }) as Record<string, unknown>;
    delete json["$schema"];
    jsonSchemas.set(input, json);
  }
  return json;
}

/** Whether this call of the tool may run alongside other read-only calls. */
export function isReadOnlyCall<I>(tool: Tool<I>, input: I): boolean {
  return typeof tool.readOnly === "function" ? tool.readOnly(input) : tool.readOnly;
}

/** A tool of any input type, as collections hold them. */
export type AnyTool = Tool<any>;
