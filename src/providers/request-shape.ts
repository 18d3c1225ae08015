// The request as a provider takes it: the model spelled its way, and what it does not offer left out (said once, never sent to fail).
import type { Middleware } from "@anthropic-ai/sdk/client";
import { providerModel, type Provider } from "./model-names.js";

/** Server tools a provider does not run, by the prefix of their type; a request offering one would be refused whole. */
const UNSUPPORTED_TOOLS: Record<Provider, readonly string[]> = {
  anthropic: [],
  bedrock: ["web_search_", "web_fetch_", "code_execution_"],
  vertex: ["web_fetch_", "code_execution_"],
  foundry: [],
};

const PROVIDER_NAMES: Record<Provider, string> = { anthropic: "the Anthropic API", bedrock: "Amazon Bedrock", vertex: "Vertex AI", foundry: "Microsoft Foundry" };

type Body = { model?: unknown; tools?: unknown; tool_choice?: unknown };

/** The body for `provider`: the model mapped (see `providerModel`), the tools it does not run removed with a tool choice naming one; and their names. Pure. */
export function shapeBody(provider: Provider, body: Body, verbatim?: string): { body: Body; leftOut: string[] } {
  const shaped: Body = { ...body };
  if (typeof body.model === "string") shaped.model = providerModel(provider, body.model, verbatim);
  const prefixes = UNSUPPORTED_TOOLS[provider];
  const tools = Array.isArray(body.tools) ? (body.tools as Array<{ type?: unknown; name?: unknown }>) : [];
  const dropped = tools.filter((tool) => typeof tool.type === "string" && prefixes.some((prefix) => (tool.type as string).startsWith(prefix)));
  if (dropped.length === 0) return { body: shaped, leftOut: [] };
  const names = dropped.map((tool) => String(tool.name));
  const kept = tools.filter((tool) => !dropped.includes(tool));
  if (kept.length > 0) shaped.tools = kept;
  else delete shaped.tools;
  const choice = body.tool_choice as { name?: unknown } | undefined;
  if (kept.length === 0 || (choice && names.includes(String(choice.name)))) delete shaped.tool_choice;
  return { body: shaped, leftOut: names };
}

/** SDK middleware shaping each Messages request for `provider` before its SDK signs it; `warn` (must not throw) hears each feature left out, once. */
export function shapeRequests(provider: Provider, verbatim: string | undefined, warn: (line: string) => void): Middleware {
  const said = new Set<string>();
  return async (request, next) => {
    if (typeof request.body !== "string" || !new URL(request.url).pathname.endsWith("/v1/messages")) return next(request);
    const { body, leftOut } = shapeBody(provider, JSON.parse(request.body) as Body, verbatim);
    for (const name of leftOut.filter((n) => !said.has(n))) {
      said.add(name);
      warn(`${PROVIDER_NAMES[provider]} does not offer the server tool ${name}: it is left out of the requests`);
    }
    return next({ ...request, body: JSON.stringify(body) });
  };
}
