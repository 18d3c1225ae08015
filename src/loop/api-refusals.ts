// How the API refused a request, read for what the loop can do about it: compact and retry, or name the setting at fault.
import { describeError, isBadRequest } from "../model/api-error.js";
import type { TurnSetup } from "./turn-setup.js";

/**
 * A request refused for the web server tools (a compatible provider without them answers 400):
 * one line naming the agent and how to turn `web` off, instead of the provider's wording alone.
 */
export function webRefused(rt: TurnSetup, error: unknown): string | undefined {
  if (!rt.web || !isBadRequest(error) || !/web_(search|fetch)|server tool/i.test(error.message)) return undefined;
  return (
    `agent "${rt.agent.id}" offers the web server tools (web_search, web_fetch), which the server at ${rt.client.baseURL} refused ` +
    `(${describeError(error)}); set "web: false" in agents/${rt.agent.id}/SOUL.md, or leave web_search and web_fetch out of its tools: list`
  );
}
/** A 400 saying the prompt does not fit: compact and retry once. */
export function isPromptTooLong(error: unknown): boolean {
  return isBadRequest(error) && /prompt is too long|context window|too many tokens/i.test(error.message);
}
