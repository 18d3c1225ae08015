// What a hub's owner gives the MCP servers beyond tools (roots, a person to answer forms, interactive sign-in, tool search),
// and the requests a server sends it: its roots, a form the person fills in, a sampling answer from the turn's model.
import { pathToFileURL } from "node:url";
import type { Client } from "@modelcontextprotocol/client";
import type { ToolContext } from "../tools/define.js";
import { serveSampling } from "./sampling.js";

/** A form (or a link to open) a server asks the person to fill in, as `elicit` receives it. */
export interface ElicitationRequest {
  server: string;
  mode: "form" | "url";
  message: string;
  /** Form mode: the JSON Schema of the answer (an object of plain fields: string, number, integer, boolean, enums). */
  schema?: Record<string, unknown>;
  /** URL mode: the page the person is asked to open. */
  url?: string;
}

/** The person's answer: the filled form (`accept`), no (`decline`), or not now (`cancel`). */
export type ElicitationAnswer = { action: "accept"; content?: Record<string, unknown> } | { action: "decline" } | { action: "cancel" };

/** Asks the person; must answer `cancel` rather than throw when nobody answers, and stop waiting on `signal`. */
export type Elicit = (request: ElicitationRequest, signal: AbortSignal) => Promise<ElicitationAnswer>;

/** Interactive sign-in: where the authorization URL goes (a browser, or a line to copy), and how long to wait for the redirect. */
export interface SignIn {
  open(url: URL, server: string): void | Promise<void>;
  timeoutMs?: number;
}

/** When MCP tools are sent with `defer_loading` for the API's tool search: past the threshold (`auto`), always, or never. */
export type ToolSearchMode = "auto" | "always" | "never";

/** What servers see of their host; every part has a default, the narrowest. */
export interface McpHost {
  /** Folders servers may work in (`roots/list`), absolute paths; default none. */
  roots: readonly string[];
  /** Answers elicitation; absent: every request is declined, and the turn is told why. */
  elicit?: Elicit;
  /** Absent: a server needing sign-in is left out with one line saying to run `miniclaw mcp login`. */
  signIn?: SignIn;
  /** The credentials file of signed-in servers; absent: OAuth is not used (only client credentials of mcp.json). */
  credentialsFile?: string;
  toolSearch: ToolSearchMode;
}

/** The calls in flight of one server, newest last: a request a server sends meanwhile belongs to the newest. */
export class CallScopes {
  private readonly open: ToolContext[] = [];

  async within<T>(context: ToolContext, work: () => Promise<T>): Promise<T> {
    this.open.push(context);
    try {
      return await work();
    } finally {
      this.open.splice(this.open.lastIndexOf(context), 1);
    }
  }

  current(): ToolContext | undefined {
    return this.open.at(-1);
  }
}

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
