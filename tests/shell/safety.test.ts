// The gate's verdicts over the shared corpus, plus the reasons it gives and the approvals lists.
import { describe, expect, it } from "vitest";
import { assessCommand, checkCommandSafety } from "../../src/shell/safety.js";
import { APPROVAL_CASES, COMMAND_CASES } from "./fixtures/commands.js";

describe("checkCommandSafety over the corpus", () => {
  const families = [...new Set(COMMAND_CASES.map((c) => c.family))];
  for (const family of families) {
    it(`classifies ${family}`, async () => {
      const cases = COMMAND_CASES.filter((c) => c.family === family);
      const got = await Promise.all(cases.map(async (c) => ({ command: c.command, verdict: await checkCommandSafety(c.command) })));
      expect(got).toEqual(cases.map((c) => ({ command: c.command, verdict: c.verdict })));
    });
  }
});

describe("approvals lists", () => {
  it("applies exact entries, patterns, and denied before everything", async () => {
    const got = await Promise.all(
      APPROVAL_CASES.map(async (c) => ({
        command: c.command,
        verdict: await checkCommandSafety(c.command, { allowed: c.allowed ?? [], denied: c.denied ?? [] }),
      })),
    );
    expect(got).toEqual(APPROVAL_CASES.map((c) => ({ command: c.command, verdict: c.verdict })));
  });
});

describe("reasons", () => {
  it("names what makes a command unsafe", async () => {
    expect((await assessCommand("ls; rm -rf ~")).reasons).toEqual(["rm writes, moves or deletes files"]);
    expect((await assessCommand("git -C /tmp push")).reasons).toEqual(["git -C runs git against another repository and its configuration"]);
    expect((await assessCommand("cat $(curl x)")).reasons).toEqual(["curl uses the network", "cat: the argument `$(curl x)` is computed by a substitution, so the gate cannot see what it opens"]);
    expect((await assessCommand("sort -o out in")).reasons).toEqual(["sort: `-o` writes its output to a file"]);
    expect((await assessCommand("cat .env")).reasons).toEqual(["cat reads .env, which may hold secrets"]);
  });
});
