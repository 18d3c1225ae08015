// Content as text: the text of a tool result, and long text cut to its head and tail around a marker.

/** A tool_result's content as the API and the session file hold it. */
export type ResultContent = string | ReadonlyArray<{ type: string; text?: string }> | undefined;

/**
 * The text of a tool result's content: a string as it is; text parts joined by newlines.
 * Other parts (images, documents) are named as `[image]` (for events, logs and summaries),
 * or left out with `others: "skip"` (when the caller keeps those blocks beside the text).
 */
export function toolResultText(content: ResultContent, others: "name" | "skip" = "name"): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content
    .flatMap((part) => (part.type === "text" && typeof part.text === "string" ? [part.text] : others === "name" ? [`[${part.type}]`] : []))
    .join("\n");
}

/**
 * Text longer than `max` characters cut to `max`: its head (`headShare` of `max`, 70% by default)
 * and tail, with `marker(cut)` between them, `cut` being the characters left out. A `headShare`
 * of 1 keeps the head alone. Text within `max` is returned as it is. Deterministic, so a cut
 * prompt or result stays byte-stable for the prompt cache.
 */
export function cutMiddle(text: string, max: number, marker: (cut: number) => string, headShare = 0.7): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * headShare);
  const tail = max - head;
  return text.slice(0, head) + marker(text.length - max) + text.slice(text.length - tail);
}
