// Why an MCP server could not be reached or answered, in a few words a person can act on: DNS, refused, TLS, 401, 404, timeout.
import { messageOf } from "../errors.js";
import type { McpServerConfig } from "./config.js";

const NETWORK_CAUSES: ReadonlyArray<[RegExp, string]> = [
  [/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME)$/, "its host name does not resolve (DNS)"],
  [/^ECONNREFUSED$/, "the connection was refused (nothing listens there)"],
  [/^(ECONNRESET|EPIPE|UND_ERR_SOCKET)$/, "the connection was reset"],
  [/^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|UND_ERR_HEADERS_TIMEOUT)$/, "the connection timed out"],
  [/^(EHOSTUNREACH|ENETUNREACH)$/, "the host is unreachable"],
  [/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/, "TLS failed"],
];

const STATUS_CAUSES: Readonly<Record<number, string>> = {
  401: "it needs sign-in (401)",
  403: "access was refused (403)",
  404: "nothing is served at that address (404): check the url, often ending in /mcp",
  405: "that address does not take MCP requests (405): check the url, often ending in /mcp",
};

/** Where a server is: its url, or its command line. Never an expanded header. */
export function whereOf(config: McpServerConfig): string {
  if ("url" in config) return safeUrl(config.url);
  if (!("command" in config)) return "an in-process server";
  return [config.command, ...(config.args ?? [])].join(" ");
}

/** The url without its credentials and query (a query may hold a token). */
function safeUrl(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}

/** One line of why: the network cause or HTTP status where one is found in the error or its causes, else its message. */
export function causeOf(error: unknown): string {
  for (let current: unknown = error, depth = 0; current !== undefined && current !== null && depth < 6; depth++) {
    const record = current as { code?: unknown; status?: unknown; message?: unknown; cause?: unknown };
    if (typeof record.status === "number" && STATUS_CAUSES[record.status]) return STATUS_CAUSES[record.status]!;
    const code = typeof record.code === "string" ? record.code : "";
    const network = NETWORK_CAUSES.find(([pattern]) => pattern.test(code));
    if (network) return `${network[1]} (${code})`;
    const status = /\b(?:HTTP |status(?: code)?:? ?)(\d{3})\b/i.exec(typeof record.message === "string" ? record.message : "");
    if (status && STATUS_CAUSES[Number(status[1])]) return STATUS_CAUSES[Number(status[1])]!;
    current = record.cause;
  }
  return oneLine(messageOf(error));
}

/** Whitespace collapsed to one line. */
export const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim();

/** A duration for messages: `2.5 s`. */
export const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;
