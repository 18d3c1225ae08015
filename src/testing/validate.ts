// validateRequest: the checks the real Messages API makes before answering, as one pure function.
import { checkText, validateMessages } from "./validate-messages.js";

/** The most `cache_control` breakpoints one request may carry. */
export const MAX_CACHE_BREAKPOINTS = 4;

/** Sampling parameters this API version refuses. */
const REMOVED_PARAMS = ["temperature", "top_p", "top_k"] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

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

function checkTools(tools: unknown): string | null {
  if (tools === undefined) return null;
  if (!Array.isArray(tools)) return "tools: Input should be a valid list";
  const names = new Set<unknown>();
  for (const [i, tool] of tools.entries()) {
    if (!isRecord(tool)) return `tools.${i}: Input should be a valid dictionary`;
    if (typeof tool.name !== "string" || tool.name === "") return `tools.${i}.name: Field required`;
    if (names.has(tool.name)) return `tools: Tool names must be unique. "${tool.name}" appears more than once`;
    names.add(tool.name);
    const serverTool = typeof tool.type === "string" && tool.type !== "custom";
    if (serverTool) continue;
    if (!isRecord(tool.input_schema)) return `tools.${i}.custom.input_schema: Field required`;
    if (tool.input_schema.type !== "object") return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
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

/**
 * The 400 message the scripted model answers for `body`, or null when the
 * request is valid. Pure. Checks the top level (model, max_tokens unless
 * `countTokens`, no temperature/top_p/top_k), the system blocks, the tools
 * (unique names, object schemas), at most four cache breakpoints, and the
 * messages (first from the user, no empty content or blank text block, every
 * tool_use answered first thing in the next user message, no stray or duplicate
 * tool_result). Stricter than the API on one point: a blank tool_result string is refused.
 */
export function validateRequest(body: unknown, options: { countTokens?: boolean } = {}): string | null {
  if (!isRecord(body)) return "request body must be a JSON object";
  const breakpoints = countCacheBreakpoints(body);
  return (
    checkTopLevel(body, options.countTokens === true) ??
    checkSystem(body.system) ??
    checkTools(body.tools) ??
    validateMessages(body.messages) ??
    (breakpoints > MAX_CACHE_BREAKPOINTS
      ? `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`
      : null)
  );
}
