// What a server may ask of miniclaw: its roots, a form the person fills in, a sampling answer from the turn's model.
import { pathToFileURL } from "node:url";
import type { Client } from "@modelcontextprotocol/client";
import type { CallScopes, ElicitationAnswer, McpHost } from "./host.js";
import { serveSampling } from "./sampling.js";

/** The capabilities miniclaw declares: every request below is served (tasks: answered at once, as the spec allows a receiver). */
export const CLIENT_CAPABILITIES = {
  roots: { listChanged: true },
  sampling: {},
  elicitation: { form: { applyDefaults: true }, url: {} },
  tasks: { requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
};

/** Serves `roots/list`, `elicitation/create` and `sampling/createMessage` for one server's client. */
export function serveServerRequests(client: Client, server: string, host: McpHost, calls: CallScopes): void {
  client.setRequestHandler("roots/list", async () => ({
    roots: host.roots.map((folder) => ({ uri: pathToFileURL(folder).href, name: folder })),
  }));
  client.setRequestHandler("elicitation/create", async (request, ctx) => {
    const params = request.params as { mode?: string; message: string; requestedSchema?: Record<string, unknown>; url?: string };
    const mode = params.mode === "url" ? "url" : "form";
    const context = calls.current();
    if (!host.elicit) {
      const why = "nobody can answer here (run, cron, or a library caller without an elicit handler)";
      context?.emit({ type: "warning", message: `MCP server "${server}" asked for input ("${params.message.slice(0, 200)}"); declined: ${why}` });
      return { action: "decline" };
    }
    const answer: ElicitationAnswer = await host.elicit(
      { server, mode, message: params.message, ...(params.requestedSchema && { schema: params.requestedSchema }), ...(params.url !== undefined && { url: params.url }) },
      context?.signal ?? ctx.mcpReq.signal,
    );
    return answer.action === "accept" ? { action: "accept", content: (answer.content ?? {}) as Record<string, string | number | boolean | string[]> } : { action: answer.action };
  });
  client.setRequestHandler("sampling/createMessage", async (request, ctx) => serveSampling(server, request.params, calls.current(), ctx.mcpReq.signal) as never);
}
