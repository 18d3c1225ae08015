// miniclaw/telemetry: a turn's events as OpenTelemetry spans (the generative AI semantic conventions), and the command line's OTLP export.
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from "@opentelemetry/api";
import { safeSink } from "../deps.js";
import { ConfigError, messageOf } from "../errors.js";
import { totalInput } from "../model/usage.js";
import type { AgentEvent, EventSink, Usage } from "../types.js";

/** A running export: spans go out in batches; `shutdown` sends what is left (call it before the process exits). */
export interface OtlpExport {
  shutdown(): Promise<void>;
}

const PACKAGES = "@opentelemetry/sdk-trace-base @opentelemetry/exporter-trace-otlp-http";

/**
 * Registers a tracer provider that exports to `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces` (OTLP over
 * HTTP with JSON; `OTEL_EXPORTER_OTLP_HEADERS` as the exporter reads it), or undefined when neither is set. The two packages are optional peers, not
 * dependencies (with what they pull in, about 28 MB that every install would carry): throws a ConfigError naming them when they are missing.
 */
export async function startOtlpExport(env: Record<string, string | undefined>): Promise<OtlpExport | undefined> {
  const base = env["OTEL_EXPORTER_OTLP_ENDPOINT"]?.trim();
  const url = env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]?.trim() || (base && `${base.replace(/\/+$/, "")}/v1/traces`);
  if (!url) return undefined;
  const [sdk, otlp] = await Promise.all([import("@opentelemetry/sdk-trace-base"), import("@opentelemetry/exporter-trace-otlp-http")]).catch((error: unknown) => {
    throw new ConfigError(`OTEL_EXPORTER_OTLP_ENDPOINT is set, but the OpenTelemetry SDK cannot be loaded (${messageOf(error).split("\n")[0]}): npm install ${PACKAGES}`);
  });
  const processor = new sdk.BatchSpanProcessor(new otlp.OTLPTraceExporter({ url }));
  const provider = new sdk.BasicTracerProvider({ spanProcessors: [processor] });
  trace.setGlobalTracerProvider(provider);
  // Unregistered after its last batch: a later export in the same process registers its own.
  return { shutdown: () => provider.shutdown().catch(() => undefined).then(() => trace.disable()) };
}

/** What `traceTurns` takes. */
export interface TraceOptions {
  /** The tracer spans are made with; default `trace.getTracer("miniclaw")`, a no-op until the program registers an OpenTelemetry SDK. */
  tracer?: Tracer;
  /** Record message text: the model's output, tool inputs and results, the commands the gate asked about. Default: MINICLAW_OTEL_CONTENT=1. */
  content?: boolean;
}

/** The open spans of one turn (the top-level turn, or a subagent's under its delegate call). */
interface OpenTurn {
  span: Span;
  chat?: { span: Span; text: string };
  tools: Map<string, Span>;
}

const PROVIDER = { "gen_ai.provider.name": "anthropic" } as const;

/**
 * An event sink making spans of a turn's events: `invoke_agent <agent>` (internal) for the turn, `chat <model>` (client) per request, `execute_tool <tool>`
 * (internal) per call, a subagent's turn under its delegate call; tokens, cache use, stop reason, cost, the gate's decision and errors as attributes, message
 * text only with `content`. One per turn or run of consecutive turns, never shared by turns running together. Never throws: a span it cannot make is skipped.
 */
export function traceTurns(options: TraceOptions = {}): EventSink {
  const tracer = options.tracer ?? trace.getTracer("miniclaw");
  const content = options.content ?? process.env["MINICLAW_OTEL_CONTENT"] === "1";
  const turns = new Map<string | undefined, OpenTurn>();
  const toolSpans = new Map<string, Span>();
  const start = (name: string, kind: SpanKind, attributes: Attributes, parent: Span | undefined): Span =>
    tracer.startSpan(name, { kind, attributes }, parent ? trace.setSpan(context.active(), parent) : context.active());

  // Telemetry never stops a turn: a throw is contained.
  return safeSink<AgentEvent>((event) => {
    const key = event.parentToolUseId;
    if (event.type === "turn_start") {
      const attributes = { ...PROVIDER, "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.id": event.agentId, "gen_ai.agent.name": event.agentId, "gen_ai.conversation.id": event.sessionKey };
      turns.set(key, { span: start(`invoke_agent ${event.agentId}`, SpanKind.INTERNAL, attributes, key === undefined ? undefined : toolSpans.get(key)), tools: new Map() });
      return;
    }
    const turn = turns.get(key);
    if (!turn) return;
    if (event.type !== "turn_end") return onTurnEvent(turn, event, { start, content, toolSpans });
    // The turn's totals and how it stopped; spans still open (an interrupted request or call) end as errors.
    endChat(turn, { code: SpanStatusCode.ERROR, message: event.error ?? event.stopReason });
    for (const span of turn.tools.values()) span.setStatus({ code: SpanStatusCode.ERROR, message: `the turn ended (${event.stopReason})` }).end();
    turn.span.setAttributes({ ...usageAttributes(event.usage, event.costUsd), "miniclaw.stop_reason": event.stopReason, "miniclaw.iterations": event.iterations });
    if (event.error !== undefined && event.stopReason !== "end_turn") turn.span.setAttribute("error.type", event.stopReason).setStatus({ code: SpanStatusCode.ERROR, message: event.error });
    turn.span.end();
    turns.delete(key);
  });
}

type Helpers = { start: (name: string, kind: SpanKind, attributes: Attributes, parent: Span) => Span; content: boolean; toolSpans: Map<string, Span> };

/** The events within a turn: requests open and close a chat span, tool calls a tool span; retries and fallbacks are span events. */
function onTurnEvent(turn: OpenTurn, event: AgentEvent, { start, content, toolSpans }: Helpers): void {
  switch (event.type) {
    case "request_start":
      endChat(turn, { code: SpanStatusCode.ERROR, message: "no response" });
      turn.chat = { span: start(`chat ${event.model}`, SpanKind.CLIENT, { ...PROVIDER, "gen_ai.operation.name": "chat", "gen_ai.request.model": event.model, "miniclaw.iteration": event.iteration }, turn.span), text: "" };
      return;
    case "text_delta":
      if (turn.chat && content) turn.chat.text += event.text;
      return;
    case "usage":
      if (!turn.chat || event.model === undefined) return;
      turn.chat.span.setAttributes({ ...usageAttributes(event.usage, event.costUsd), "gen_ai.response.model": event.model, "gen_ai.response.finish_reasons": [event.stopReason ?? "end_turn"] });
      if (content && turn.chat.text) turn.chat.span.setAttribute("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: turn.chat.text }] }]));
      endChat(turn);
      return;
    case "retry":
    case "fallback":
      (turn.chat?.span ?? turn.span).addEvent(event.type, event.type === "retry" ? { attempt: event.attempt, reason: event.reason } : { from: event.from, to: event.to, reason: event.reason });
      return;
    case "tool_call": {
      const attributes: Attributes = { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": event.name, "gen_ai.tool.call.id": event.id, "gen_ai.tool.type": event.server ? "extension" : "function" };
      if (content) attributes["gen_ai.tool.call.arguments"] = JSON.stringify(event.input);
      const span = start(`execute_tool ${event.name}`, SpanKind.INTERNAL, attributes, turn.span);
      turn.tools.set(event.id, span);
      toolSpans.set(event.id, span);
      return;
    }
    case "approval":
      turn.tools.get(event.id)?.setAttributes({ "miniclaw.gate.decision": event.decision, ...(content && { "miniclaw.gate.command": event.command }) });
      return;
    case "tool_result": {
      const span = turn.tools.get(event.id);
      if (!span) return;
      if (content) span.setAttribute("gen_ai.tool.call.result", event.content);
      if (event.isError) span.setAttribute("error.type", "tool_error").setStatus({ code: SpanStatusCode.ERROR, ...(content && { message: event.content.slice(0, 500) }) });
      span.end();
      turn.tools.delete(event.id);
      toolSpans.delete(event.id);
      return;
    }
  }
}

function endChat(turn: OpenTurn, status?: { code: SpanStatusCode; message: string }): void {
  if (!turn.chat) return;
  if (status) turn.chat.span.setAttribute("error.type", "no_response").setStatus(status);
  turn.chat.span.end();
  delete turn.chat;
}

/** Tokens as the conventions count them (`input_tokens` includes the cached ones), and the estimated cost. */
function usageAttributes(usage: Usage, costUsd: number): Attributes {
  return {
    "gen_ai.usage.input_tokens": totalInput(usage),
    "gen_ai.usage.output_tokens": usage.outputTokens,
    "gen_ai.usage.cache_read.input_tokens": usage.cacheReadTokens,
    "gen_ai.usage.cache_creation.input_tokens": usage.cacheWriteTokens,
    "miniclaw.cost_usd": costUsd,
  };
}
