// The fuzz pass of tests/reliability at soak size: many more and longer random conversations.
import { describe, expect, it } from "vitest";
import { checkRandomConversations } from "../reliability/conversation-fuzz.js";

const RUNS = Number(process.env["SOAK_FUZZ_RUNS"] ?? 1_000);

describe("random conversations (soak)", () => {
  it(`leave, after every step, a session that loads and a next request the API accepts (${RUNS} runs)`, async () => {
    const seed = process.env["SOAK_SEED"] !== undefined ? Number(process.env["SOAK_SEED"]) : undefined;
    const counts = await checkRandomConversations(RUNS, 15, seed);
    expect(counts.runs).toBe(RUNS);
    console.info(`[soak] fuzz: ${JSON.stringify(counts)}`);
  });
});
