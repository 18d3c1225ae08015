// Content as text: the text of a tool result, and long text cut to its head and tail around a marker.

/** A tool_result's content as the API and the session file hold it. */
export type ResultContent = string | ReadonlyArray<{ type: string; text?: string }> | undefined;

/** The text of a tool result's content: text parts joined by newlines; other parts named (`[image]`), or left out with `others: "skip"`. */
export function toolResultText(content: ResultContent, others: "name" | "skip" = "name"): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content.flatMap((part) => (part.type === "text" && typeof part.text === "string" ? [part.text] : others === "name" ? [`[${part.type}]`] : [])).join("\n");
}

/** Text over `max` characters cut to its head (`headShare` of `max`) and tail around `marker(cut)`; deterministic, so a cut prompt stays byte-stable for the cache. */
export function cutMiddle(text: string, max: number, marker: (cut: number) => string, headShare = 0.7): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * headShare);
  return text.slice(0, head) + marker(text.length - max) + text.slice(text.length - (max - head));
}

/** A server tool's call or result block, loosely typed: these blocks come back from the provider as they are. */
type ServerBlock = { type: string; name?: unknown; input?: unknown; content?: unknown };

/** A server tool's call in a few words: `"query"` for a search, the URL for a fetch. */
export function serverCallText(block: ServerBlock): string {
  const input = (block.input ?? {}) as { query?: unknown; url?: unknown };
  if (typeof input.query === "string") return JSON.stringify(input.query);
  if (typeof input.url === "string") return input.url;
  return JSON.stringify(block.input ?? {});
}

/** A server tool's result as a person reads it and a compaction summarises it: what came back, then titles and URLs; never the page content. */
export function serverResultText(block: ServerBlock): { isError: boolean; text: string } {
  const content = block.content as Record<string, unknown> | Array<Record<string, unknown>> | undefined;
  if (Array.isArray(content)) {
    const lines = content.map((r, i) => `${i + 1}. ${String(r["title"] ?? "(untitled)")} — ${String(r["url"] ?? "")}`);
    return { isError: false, text: [`${content.length} result${content.length === 1 ? "" : "s"}`, ...lines].join("\n") };
  }
  if (content && typeof content["error_code"] === "string") return { isError: true, text: `error: ${content["error_code"]}` };
  if (content && content["type"] === "web_fetch_result") {
    const document = (content["content"] ?? {}) as { title?: unknown };
    const title = typeof document.title === "string" && document.title.trim() ? document.title : String(content["url"] ?? "");
    return { isError: false, text: `fetched ${title}\n${String(content["url"] ?? "")}` };
  }
  return { isError: false, text: `(${block.type})` };
}

/** Whether a content block is a server tool's result (`web_search_tool_result`, `web_fetch_tool_result`, …). */
export function isServerResult(block: { type: string }): boolean {
  return block.type.endsWith("_tool_result") && block.type !== "tool_result";
}
