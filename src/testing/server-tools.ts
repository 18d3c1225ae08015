// Server tools in replies: web_search and web_fetch blocks, the citation of a search result, usage counts, and what a request offers.
import { isRecord, type LooseBlock } from "./conversation.js";
import { opaque, randomId } from "./signature.js";
import type { RequestBody, ScriptedFetch, ScriptedSearch, ScriptedServerTool } from "./types.js";

/** Usage of server tools, as the API reports it in `usage.server_tool_use`. */
export type ServerToolUsage = { web_search_requests: number; web_fetch_requests: number };

/** The `server_tool_use` block of a call and its result block. */
function callBlocks(name: "web_search" | "web_fetch", input: Record<string, string>, content: unknown): LooseBlock[] {
  const id = randomId("srvtoolu_");
  const caller = { type: "direct" };
  return [
    { type: "server_tool_use", id, name, input, caller },
    { type: `${name}_tool_result`, tool_use_id: id, content, caller },
  ];
}

function searchBlocks(call: ScriptedSearch): LooseBlock[] {
  const results = call.results.map((r) => ({ type: "web_search_result", url: r.url, title: r.title, encrypted_content: opaque(96), page_age: r.pageAge ?? null }));
  return callBlocks("web_search", { query: call.search }, results);
}

function fetchBlocks(call: ScriptedFetch, now: Date): LooseBlock[] {
  if (call.error !== undefined) return callBlocks("web_fetch", { url: call.fetch }, { type: "web_fetch_tool_result_error", error_code: call.error });
  const document = { type: "document", source: { type: "text", media_type: "text/plain", data: call.text ?? "" }, title: call.title ?? null, citations: null };
  return callBlocks("web_fetch", { url: call.fetch }, { type: "web_fetch_result", url: call.fetch, retrieved_at: now.toISOString(), content: document });
}

/** Each call as its `server_tool_use` block followed by its result block, in order. */
export function serverToolBlocks(calls: readonly ScriptedServerTool[], now = new Date()): LooseBlock[] {
  return calls.flatMap((call) => ("search" in call ? searchBlocks(call) : fetchBlocks(call, now)));
}

/** A `web_search_result_location` citing the first search result among `blocks`; throws (a script error) when no search there has one. */
export function citeFirstResult(blocks: readonly LooseBlock[]): LooseBlock {
  for (const block of blocks) {
    const first: unknown = block.type === "web_search_tool_result" && Array.isArray(block.content) ? block.content[0] : undefined;
    if (isRecord(first)) return { type: "web_search_result_location", url: first.url, title: first.title, encrypted_index: opaque(24), cited_text: first.title };
  }
  throw new Error("the reply asks for citations, but none of its serverTools searches has a result to cite");
}

/** Searches and fetches in `content`; undefined when it used no server tool (the usage then omits the field). */
export function serverToolUsage(content: readonly unknown[]): ServerToolUsage | undefined {
  const names = content.flatMap((b) => (isRecord(b) && b.type === "server_tool_use" ? [b.name] : []));
  if (names.length === 0) return undefined;
  return { web_search_requests: names.filter((n) => n === "web_search").length, web_fetch_requests: names.filter((n) => n === "web_fetch").length };
}

/** The script error of a content that uses a server tool the request does not offer (no tool whose type is `<name>_<version>`), or null. */
export function unofferedServerTool(content: readonly unknown[], body: RequestBody): string | null {
  const types = (Array.isArray(body.tools) ? (body.tools as unknown[]) : []).map((t) => (isRecord(t) ? String(t.type ?? "") : ""));
  for (const block of content) {
    if (!isRecord(block) || block.type !== "server_tool_use") continue;
    const name = String(block.name);
    if (!types.some((type) => type.startsWith(`${name}_`))) return `the reply uses the server tool ${name}, but the request offers no ${name} tool (no tool of type ${name}_*)`;
  }
  return null;
}
