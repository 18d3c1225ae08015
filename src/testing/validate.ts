// validateRequest: the checks the real Messages API makes before answering, as one pure function.
import { isRecord } from "./conversation.js";
import type { IssuedThinking } from "./issued.js";
import { checkText, validateMessages } from "./validate-messages.js";
import { checkOutputConfig } from "./validate-output.js";
import { checkThinkingConfig, checkThinkingPlacement } from "./validate-thinking.js";
import { checkTools } from "./validate-tools.js";

/** The most `cache_control` breakpoints one request may carry. */
export const MAX_CACHE_BREAKPOINTS = 4;

/** Sampling parameters this API version refuses. */
const REMOVED_PARAMS = ["temperature", "top_p", "top_k"] as const;


function checkSystem(system: unknown): string | null {
  if (system === undefined || typeof system === "string") return null;
  if (!Array.isArray(system)) return "system: Input should be a valid string or list of text blocks";
  for (const [j, block] of system.entries()) {
    if (!isRecord(block) || block.type !== "text") return `system.${j}.type: Input should be 'text'`;
    const error = checkText(block.text, `system.${j}.text`);
    if (error) return error;
  }
  return null;
}

/** Blocks with cache_control in a list, counting those nested inside tool_result content too. */
function breakpointsIn(list: unknown): number {
  if (!Array.isArray(list)) return 0;
  return list.reduce<number>((sum, b) => {
    if (!isRecord(b)) return sum;
    const own = b.cache_control != null ? 1 : 0;
    return sum + own + (b.type === "tool_result" ? breakpointsIn(b.content) : 0);
  }, 0);
}

/** Breakpoints of a request: tools, system blocks, message blocks, and the top-level automatic one. */
export function countCacheBreakpoints(body: Record<string, unknown>): number {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const inMessages = messages.reduce<number>((sum, m) => sum + (isRecord(m) ? breakpointsIn(m.content) : 0), 0);
  const automatic = body.cache_control != null ? 1 : 0;
  return breakpointsIn(body.tools) + breakpointsIn(body.system) + inMessages + automatic;
}

function checkTopLevel(body: Record<string, unknown>, countTokens: boolean): string | null {
  if (body.model === undefined) return "model: Field required";
  if (typeof body.model !== "string" || body.model === "") return "model: Input should be a valid string";
  if (!countTokens) {
    const max = body.max_tokens;
    if (max === undefined) return "max_tokens: Field required";
    if (typeof max !== "number" || !Number.isInteger(max)) return "max_tokens: Input should be a valid integer";
    if (max < 0) return "max_tokens: Input should be greater than or equal to 0";
  }
  for (const name of REMOVED_PARAMS) {
    if (name in body) return `${name}: Extra inputs are not permitted. This API version no longer accepts sampling parameters; remove \`${name}\`.`;
  }
  return null;
}

/** How `validateRequest` reads a request. */
export interface ValidateOptions {
  /** A `count_tokens` body: no `max_tokens` needed. */
  countTokens?: boolean;
  /**
   * The thinking the server sent with each call it issued. Without it (or for ids
   * it does not know) only manual thinking's "starts with a thinking block" rule
   * applies to a tool loop.
   */
  issuedThinking?: IssuedThinking;
  /** False: every typed (server) tool is refused, as by a provider without them. Default true. */
  serverTools?: boolean;
}

/**
 * The 400 message the scripted model answers for `body`, or null when the
 * request is valid. Pure. Checks the top level (model, max_tokens unless
 * `countTokens`, no temperature/top_p/top_k), `thinking` (type, keys, a budget of
 * at least 1024 below max_tokens, no forced tool_choice), `output_config` (effort,
 * a closed JSON Schema format), the system blocks, the tools (unique names, object
 * schemas, known web_search / web_fetch versions), at most four cache breakpoints,
 * and the messages (first from the user, no empty content or blank text block,
 * every tool_use answered first thing in the next user message, no stray or
 * duplicate tool_result; thinking signed by the scripted model, without
 * cache_control, and with thinking on, sent back first and unchanged in the turn
 * that continues a tool loop or a paused turn; server tool blocks only from the
 * assistant, each result after its call). Stricter than the API on one point: a
 * blank tool_result string is refused.
 */
export function validateRequest(body: unknown, options: ValidateOptions = {}): string | null {
  if (!isRecord(body)) return "request body must be a JSON object";
  const countTokens = options.countTokens === true;
  const breakpoints = countCacheBreakpoints(body);
  return (
    checkTopLevel(body, countTokens) ??
    checkThinkingConfig(body, countTokens) ??
    checkOutputConfig(body.output_config) ??
    checkSystem(body.system) ??
    checkTools(body.tools, options.serverTools ?? true) ??
    validateMessages(body.messages) ??
    checkThinkingPlacement(body, options.issuedThinking) ??
    (breakpoints > MAX_CACHE_BREAKPOINTS
      ? `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`
      : null)
  );
}
