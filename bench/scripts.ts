// The scripted model's rules for the bench: tool loops of a fixed number of rounds, counted from the request alone.
import { z } from "zod";
import type { RecordedRequest, Rule } from "../src/testing/index.js";
import type { MiniclawLibrary } from "./built-library.js";

/** A tool call the script asks for in round `round` (0-based) of a turn. */
export type CallFor = (req: RecordedRequest, round: number) => { name: string; input: unknown };

interface WireMessage {
  role?: unknown;
  content?: unknown;
}

/** A user message that starts a turn: text, not tool results. */
function isTurnStart(message: WireMessage): boolean {
  if (message.role !== "user") return false;
  if (typeof message.content === "string") return true;
  return Array.isArray(message.content) && !message.content.some((b: { type?: unknown }) => b?.type === "tool_result");
}

/** Messages of the request as the wire has them. */
function messagesOf(req: RecordedRequest): WireMessage[] {
  const messages: unknown = req.body.messages;
  return Array.isArray(messages) ? (messages as WireMessage[]) : [];
}

/** How many assistant answers the current turn already has (its tool rounds so far). */
export function roundsSoFar(req: RecordedRequest): number {
  const messages = messagesOf(req);
  const start = messages.findLastIndex(isTurnStart);
  return messages.slice(start + 1).filter((m) => m.role === "assistant").length;
}

/** How many turns the session has had, this one included. */
export function turnNumber(req: RecordedRequest): number {
  return messagesOf(req).filter(isTurnStart).length;
}

/**
 * A turn of exactly `requests` model requests: `requests - 1` responses with one
 * tool call each (a different input every round, so no repeat brake fires), then text.
 */
export function toolLoopRule(requests: number | ((req: RecordedRequest) => number), callFor: CallFor): Rule {
  return {
    reply: (req) => {
      const round = roundsSoFar(req);
      const total = typeof requests === "number" ? requests : requests(req);
      if (round >= total - 1) return { text: `done after ${round} tool rounds` };
      return { toolUses: [callFor(req, round)] };
    },
  };
}

/** True when the request offers a tool of this name. */
export function offersTool(req: RecordedRequest, name: string): boolean {
  const tools: unknown = req.body.tools;
  return Array.isArray(tools) && tools.some((tool: { name?: unknown }) => tool?.name === name);
}

/** What the cache benches' `lookup` tool returns: 30 lines, about 1.5 KB. */
const LOOKUP_RESULT = Array.from({ length: 30 }, (_, i) => `${i + 1}\tline ${i + 1} of the looked-up record, with some words`).join("\n");

/** The cache benches' read-only `lookup` tool, made with the built library's defineTool. */
export function lookupTool(lib: MiniclawLibrary) {
  return lib.defineTool({ name: "lookup", description: "Looks up a record by id.", input: z.object({ id: z.string() }), readOnly: true, run: () => LOOKUP_RESULT });
}
