// defineTool: a tool from a zod object schema and one access declaration, with the JSON schema the API sees derived from it.
import * as z from "zod";
import type Anthropic from "@anthropic-ai/sdk";
import type { Clock, Spawn } from "../deps.js";
import { ConfigError } from "../errors.js";
import type { Access, Gate, Grant } from "../gate/context.js";
import type { EventSink, TurnResult } from "../types.js";

export type { Access, Grant } from "../gate/context.js";

/** What a tool returns: plain text, or content blocks (text, images, documents). */
export type ToolOutput = string | Array<Anthropic.TextBlockParam | Anthropic.ImageBlockParam | Anthropic.DocumentBlockParam>;

/** The turn a call belongs to, for the tools that act on the turn itself (delegate, exit_plan_mode). */
export interface TurnScope {
  sessionKey: string;
  agentId: string;
  /** Runs another agent on `task` as a subagent of this turn (its brakes, mode, approver, events, signal). */
  delegate(agentId: string, task: string, toolUseId: string): Promise<TurnResult>;
  /** Sets the permission mode from the next call on, as a tool's doing (exit_plan_mode), recorded in the session. */
  setMode(mode: Gate["mode"]): void;
  /** One side request to the turn's model for the tool (an MCP server's sampling, once the user allowed it), counted in the turn's usage and budget; throws one line at the turn's limits or on failure. */
  sample?(request: SideRequest, signal: AbortSignal): Promise<Anthropic.Message>;
}

/** A side request to the turn's model: the turn's model answers, with the turn's client. */
export type SideRequest = { system?: string; messages: Anthropic.MessageParam[]; maxTokens: number; stopSequences?: string[] };

/** The effects a tool may use, every one injected by the loop: `cwd` (where relative paths and commands start), `env` (for children, without secrets). */
export interface ToolContext {
  cwd: string;
  workspace: string;
  /** Aborted when the user interrupts the turn; long work must stop on it. */
  signal: AbortSignal;
  clock: Clock;
  spawn: Spawn;
  env: Record<string, string | undefined>;
  emit: EventSink;
  /** The id of the tool_use this call answers. */
  toolUseId: string;
  /** The mode now, and the plan question. */
  gate: Gate;
  /** What the gate granted this call; set by the dispatcher, which asks the gate before `run`. */
  grant?: Grant;
  /** The turn this call belongs to; absent when a tool is run outside a turn. */
  turn?: TurnScope;
}

/** The access of a tool's calls: fixed, or decided from the parsed input (a throw refuses the call). */
export type AccessRule<I> = Access | ((input: I, context: ToolContext) => Access | Promise<Access>);

/** Whether a call needs the user's approval: fixed, or decided from the parsed input. */
export type NeedsApproval<I> = boolean | ((input: I, context: ToolContext) => boolean | Promise<boolean>);

/** A tool as the loop holds it. Data, not a class. */
export interface Tool<I = unknown> {
  name: string;
  description: string;
  /** The zod schema the model's input is validated against before `run`. */
  input: z.ZodType<I>;
  /** The JSON schema the API sees, derived from `input` at definition. */
  inputSchema: Anthropic.Tool.InputSchema;
  /** What each call may touch, as the gate judges it (see Access). */
  access: AccessRule<I>;
  /** On an interrupt, wait for `run` (which stops promptly on the signal) instead of answering at once: a delegate's child ends first. */
  waitsOnInterrupt?: boolean;
  /** Why a call asks (access `ask`), as the approval question says it; default "the tool is declared to need approval". */
  approvalReason?: string;
  /** Sent with `defer_loading`: the model finds it through the API's tool search tool, which the request then offers. */
  deferLoading?: boolean;
  /** A stable note for the system prompt when the tool is offered (the same note of several tools is written once). */
  systemNote?: string;
  /** Runs the tool, after the gate allowed the call. A throw becomes an is_error result carrying its message. */
  run(input: I, context: ToolContext): Promise<ToolOutput> | ToolOutput;
}

/** What `defineTool` takes. */
export interface ToolSpec<S extends z.ZodObject> {
  name: string;
  description: string;
  input: S;
  /** What each call may touch (default `act`: it runs unasked, never in plan mode). */
  access?: AccessRule<z.infer<S>>;
  /** @deprecated Use `access: "read"`; kept as an alias for one minor version. */
  readOnly?: boolean | ((input: z.infer<S>) => boolean);
  /** @deprecated Use `access: "ask"`; kept as an alias for one minor version (it wins over `readOnly`). */
  needsApproval?: NeedsApproval<z.infer<S>>;
  run(input: z.infer<S>, context: ToolContext): Promise<ToolOutput> | ToolOutput;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** A zod 4 schema, whatever copy of zod made it: the package bundles its own, so a user's is known by its shape (`_zod`), not `instanceof`. */
export function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === "object" && value !== null && "_zod" in value && typeof (value as z.ZodType).safeParse === "function";
}

/**
 * Defines a tool from a zod object schema; what a call may touch is declared here, never asked from `run`. Throws ConfigError at definition: a name
 * the API refuses, an input that is not a zod object schema, a `run` that is not a function, `access` beside its old aliases.
 */
export function defineTool<S extends z.ZodObject>(spec: ToolSpec<S>): Tool<z.infer<S>> {
  const label = `defineTool(${typeof spec?.name === "string" ? spec.name : "?"})`;
  if (typeof spec?.name !== "string" || !TOOL_NAME.test(spec.name)) throw new ConfigError(`${label}: name must match ${TOOL_NAME} (letters, digits, _ and -, at most 64)`);
  if (!isZodSchema(spec.input) || (spec.input as { _zod: { def: { type?: string } } })._zod.def.type !== "object") {
    const jsonSchema = typeof spec.input === "object" && spec.input !== null && "type" in spec.input;
    throw new ConfigError(`${label}: input must be a zod object schema, z.object({...})${jsonSchema ? ", not a JSON Schema object" : ""}`);
  }
  if (typeof spec.run !== "function") throw new ConfigError(`${label}: run must be a function (input, context) => string or content blocks`);
  const aliased = spec.readOnly !== undefined || spec.needsApproval !== undefined;
  if (spec.access !== undefined && aliased) throw new ConfigError(`${label}: give access alone; readOnly and needsApproval are its old spellings`);
  const access = spec.access ?? accessOfAliases<z.infer<S>>(spec.readOnly, spec.needsApproval);
  const inputSchema = { ...jsonSchemaOf(spec.input), type: "object" } as Anthropic.Tool.InputSchema;
  return { name: spec.name, description: spec.description, input: spec.input as unknown as z.ZodType<z.infer<S>>, inputSchema, access, run: spec.run };
}

/** `readOnly` and `needsApproval` as one access: a call that needs approval asks, a read-only one reads, any other acts. */
function accessOfAliases<I>(readOnly: boolean | ((input: I) => boolean) | undefined, needsApproval: NeedsApproval<I> | undefined): AccessRule<I> {
  if (typeof readOnly !== "function" && typeof needsApproval !== "function") return needsApproval ? "ask" : readOnly ? "read" : "act";
  return async (input, context) => {
    if (typeof needsApproval === "function" ? await needsApproval(input, context) : needsApproval === true) return "ask";
    return (typeof readOnly === "function" ? readOnly(input) : readOnly === true) ? "read" : "act";
  };
}

/** The access of one call, from a tool's declaration. */
export async function accessOf<I>(tool: Tool<I>, input: I, context: ToolContext): Promise<Access> {
  return typeof tool.access === "function" ? tool.access(input, context) : tool.access;
}

/** JSON Schemas by zod schema, converted once per schema object (a conversion costs about a millisecond). */
const jsonSchemas = new WeakMap<z.ZodObject, Record<string, unknown>>();

function jsonSchemaOf(input: z.ZodObject): Record<string, unknown> {
  const cached = jsonSchemas.get(input);
  if (cached) return cached;
  const { $schema: _dropped, ...json } = z.toJSONSchema(input, { target: "draft-2020-12", io: "input" }) as Record<string, unknown>;
  jsonSchemas.set(input, json);
  return json;
}

/** A tool of any input type, as collections hold them. */
export type AnyTool = Tool<any>;
