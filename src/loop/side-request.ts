// A side request to a turn's model on a tool's behalf (an MCP server's sampling): under the turn's brakes, counted in its usage.
import type Anthropic from "@anthropic-ai/sdk";
import { fromApiUsage } from "../model/usage.js";
import type { SideRequest } from "../tools/define.js";
import type { TurnSetup } from "./turn-setup.js";
import type { TurnState } from "./turn-state.js";

/**
 * The `sample` of a turn's scope: one non-streaming request to the turn's model with the turn's client. Refused (a throw
 * with one line) once the turn's budget or iteration brake is reached; its usage counts toward the turn's usage, cost
 * and budget, and rides on the next stored response as discarded usage, so the session file still sums the whole cost.
 */
export function sideRequests(rt: TurnSetup, turn: TurnState): (request: SideRequest, signal: AbortSignal) => Promise<Anthropic.Message> {
  return async (request, signal) => {
    const brake = turn.stopBefore();
    if (brake) throw new Error(`the turn's limit is reached: ${brake[1]}`);
    const message = await rt.client.messages.create(
      {
        model: rt.model,
        max_tokens: request.maxTokens,
        messages: request.messages,
        ...(request.system !== undefined && request.system.trim() !== "" && { system: request.system }),
        ...(request.stopSequences !== undefined && request.stopSequences.length > 0 && { stop_sequences: request.stopSequences }),
      },
      { signal },
    );
    const usage = fromApiUsage(message.usage);
    turn.count(usage);
    turn.setAside(usage);
    return message;
  };
}
