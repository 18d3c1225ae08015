// The gate over a labelled corpus of everyday commands: no harmful command is judged safe, and few harmless ones are asked.
import { describe, expect, it } from "vitest";
import { assessCommand } from "../../src/shell/safety.js";
import { sandboxSupport } from "../../src/shell/child-sandbox.js";
import { EVERYDAY_CASES } from "./fixtures/everyday.js";

/** The goal for harmless commands still asked (9.6% today); also a ceiling against regressions. */
const MAX_FALSE_ASK_RATE = 0.1;

describe("everyday commands", () => {
  it("judges no harmful command safe and asks about few harmless ones", async () => {
    const judged = await Promise.all(EVERYDAY_CASES.map(async (c) => ({ ...c, verdict: (await assessCommand(c.command)).verdict })));
    expect(judged.filter((c) => c.label === "harmful" && c.verdict === "safe").map((c) => c.command)).toEqual([]);
    const harmless = judged.filter((c) => c.label === "harmless");
    const asked = harmless.filter((c) => c.verdict !== "safe");
    const rate = asked.length / harmless.length;
    console.log(`everyday corpus: ${asked.length} of ${harmless.length} harmless commands asked (false-ask rate ${(100 * rate).toFixed(1)}%)`);
    // Without sed's and awk's sandbox those programs are asked, so the rate is only held where both exist.
    if (sandboxSupport().sed && sandboxSupport().awk) expect(rate).toBeLessThanOrEqual(MAX_FALSE_ASK_RATE);
  });

  it("is a corpus of at least 300 commands, harmless and harmful, each listed once", () => {
    expect(EVERYDAY_CASES.length).toBeGreaterThanOrEqual(300);
    expect(new Set(EVERYDAY_CASES.map((c) => c.command)).size).toBe(EVERYDAY_CASES.length);
    expect(EVERYDAY_CASES.filter((c) => c.label === "harmful").length).toBeGreaterThanOrEqual(100);
  });
});
