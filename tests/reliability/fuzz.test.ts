// A property-based pass over random conversations: after every step the session loads and the next request is valid.
import { describe, expect, it } from "vitest";
import { checkRandomConversations } from "./conversation-fuzz.js";

describe("random conversations", () => {
  it("leave, after every step, a session that loads and a next request the API accepts", async () => {
    const counts = await checkRandomConversations(25, 6);
    expect(counts.runs).toBe(25);
    console.info(`[reliability] fuzz: ${JSON.stringify(counts)}`);
  }, 120_000);

  it("replays the conversation that found a session file appended to after its tail was torn, without the lock", async () => {
    // A truncated tail, then turns whose store skips the lock: the next record was fused onto the torn line.
    await checkRandomConversations(6, 6, 1322438946);
  }, 60_000);
});
