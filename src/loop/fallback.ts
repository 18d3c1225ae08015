// A turn moving to its fallback model when the primary stays overloaded or unavailable, and the history made fit to cross models.
import { asApiError, describeError } from "../model/api-error.js";
import type { EventSink, MessageParam, ThinkingSetting } from "../types.js";

type Switchable = { model: string; fallbackModel: string | undefined; thinking: ThinkingSetting | undefined; crossed: boolean; emit: EventSink };

/** Blocks signed or encrypted for the model that wrote them: another model refuses them. */
const MODEL_BOUND = /^(thinking|redacted_thinking|server_tool_use|[a-z_]+_tool_result)$/;

/** An error of a model overloaded (529, an `overloaded_error` event) or unavailable (503) once the retries are spent, not of a request at fault. */
export function isUnavailable(error: unknown): boolean {
  const api = asApiError(error);
  const type = (api?.error as { error?: { type?: string } } | undefined)?.error?.type ?? api?.type;
  return api !== undefined && (api.status === 529 || api.status === 503 || type === "overloaded_error");
}

/**
 * Moves the turn to its fallback model when `error` says the model is overloaded or unavailable and there is one: emits `fallback` and returns true (ask
 * again). From then on the turn does not think, and its history goes through `forAnotherModel`, so no request carries a block the fallback would refuse.
 */
export function fallBack(rt: Switchable, error: unknown): boolean {
  if (rt.fallbackModel === undefined || rt.fallbackModel === rt.model || !isUnavailable(error)) return false;
  rt.emit({ type: "fallback", from: rt.model, to: rt.fallbackModel, reason: describeError(error) });
  rt.model = rt.fallbackModel;
  rt.thinking = "off";
  rt.crossed = true;
  return true;
}

/** The history for a model other than the one that wrote it: thinking and server tool blocks left out, and citations of those results. Pure. */
export function forAnotherModel(messages: readonly MessageParam[]): MessageParam[] {
  return messages.map((message) => {
    if (message.role !== "assistant" || typeof message.content === "string") return message;
    const bound = message.content.some((b) => MODEL_BOUND.test(b.type) || (b.type === "text" && b.citations));
    if (!bound) return message;
    const kept = message.content.filter((b) => !MODEL_BOUND.test(b.type)).map((b) => (b.type === "text" ? { type: "text" as const, text: b.text } : b));
    return { role: "assistant", content: kept.length > 0 ? kept : [{ type: "text", text: "(an earlier model's thinking, left out)" }] };
  });
}
