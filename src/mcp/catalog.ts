// What a server offers, as miniclaw keeps it: tools (with their task support), resources, resource templates, prompts, instructions.
import type { Client } from "@modelcontextprotocol/client";

/** A tool as the server lists it (the parts miniclaw uses). */
export type McpToolInfo = {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  /** `required`: callable only as a task (miniclaw then calls it so). */
  taskSupport?: "required" | "optional" | "forbidden" | undefined;
};

export type McpResourceInfo = { uri: string; name: string; title?: string | undefined; description?: string | undefined; mimeType?: string | undefined };
export type McpTemplateInfo = { uriTemplate: string; name: string; description?: string | undefined };
export type McpPromptInfo = { name: string; title?: string | undefined; description?: string | undefined; arguments: Array<{ name: string; description?: string | undefined; required?: boolean | undefined }> };

/** Listed at connect, and again after a list_changed. */
export interface McpCatalog {
  tools: McpToolInfo[];
  resources: McpResourceInfo[];
  templates: McpTemplateInfo[];
  prompts: McpPromptInfo[];
  /** The server's `instructions` from `initialize`. */
  instructions: string | undefined;
}

/** Lists what the server's capabilities say it has; a list that fails (a server that declares more than it serves) is empty. */
export async function listCatalog(client: Client): Promise<McpCatalog> {
  const capabilities = client.getServerCapabilities() ?? {};
  const empty = <T>(): Promise<T[]> => Promise.resolve([]);
  const [tools, resources, templates, prompts] = await Promise.all([
    client.listTools().then((r) => r.tools.map((t) => toolInfo(t as ListedTool))),
    capabilities.resources ? client.listResources().then((r) => r.resources.map(pick), () => []) : empty<McpResourceInfo>(),
    capabilities.resources ? client.listResourceTemplates().then((r) => r.resourceTemplates.map((t) => ({ uriTemplate: t.uriTemplate, name: t.name, description: t.description })), () => []) : empty<McpTemplateInfo>(),
    capabilities.prompts ? client.listPrompts().then((r) => r.prompts.map((p) => ({ name: p.name, title: p.title, description: p.description, arguments: p.arguments ?? [] })), () => []) : empty<McpPromptInfo>(),
  ]);
  const instructions = client.getInstructions()?.trim();
  return { tools, resources, templates, prompts, instructions: instructions ? instructions : undefined };
}

type ListedTool = { name: string; title?: string; description?: string; inputSchema: unknown; execution?: { taskSupport?: string } };

function toolInfo(tool: ListedTool): McpToolInfo {
  const schema = typeof tool.inputSchema === "object" && tool.inputSchema !== null ? (tool.inputSchema as Record<string, unknown>) : {};
  const support = tool.execution?.taskSupport;
  return { name: tool.name, title: tool.title, description: tool.description, inputSchema: schema, taskSupport: support === "required" || support === "optional" ? support : undefined };
}

function pick(resource: McpResourceInfo): McpResourceInfo {
  return { uri: resource.uri, name: resource.name, title: resource.title, description: resource.description, mimeType: resource.mimeType };
}
