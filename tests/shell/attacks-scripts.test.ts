// Attacks through sed, jq, awk, test, printf and substitutions: every one is refused, and sed's are refused by its script reader even where --sandbox is missing.
import { describe, expect, it } from "vitest";
import { checkSedScript } from "../../src/shell/rules-sed.js";
import { assessCommand } from "../../src/shell/safety.js";
import { parseShell } from "../../src/shell/shell-parse.js";
import { SCRIPT_ATTACKS } from "./fixtures/attacks-scripts.js";

/** The script sed would compile: the `-e` values joined with newlines, else the first word that is not an option. */
async function sedScript(command: string): Promise<string | undefined> {
  const sed = (await parseShell(command)).commands.find((c) => c.argv[0]?.value === "sed");
  const args = sed?.argv.slice(1).map((w) => w.value) ?? [];
  const expressions = args.flatMap((a, i) => (a === "-e" && args[i + 1] !== undefined ? [args[i + 1] as string] : []));
  return expressions.length > 0 ? expressions.join("\n") : args.find((a) => !a.startsWith("-"));
}

describe("attacks through script languages and substitutions", () => {
  it("judges none of them safe", async () => {
    const verdicts = await Promise.all(SCRIPT_ATTACKS.map(async (a) => ({ command: a.command, verdict: (await assessCommand(a.command)).verdict })));
    expect(verdicts).toEqual(SCRIPT_ATTACKS.map((a) => ({ command: a.command, verdict: "needs_approval" })));
  });

  it("has the review's examples and at least two variants of each class", () => {
    for (const family of new Set(SCRIPT_ATTACKS.map((a) => a.family))) {
      expect(SCRIPT_ATTACKS.filter((a) => a.family === family && a.origin === "variant").length, family).toBeGreaterThanOrEqual(2);
    }
    const reviewed = new Set(SCRIPT_ATTACKS.filter((a) => a.origin === "review").map((a) => a.family));
    expect([...reviewed]).toEqual(["sed brackets", "jq environment", "compressor recursion", "compressor modes", "quoted braces", "git listing patches", "git signature formats"]);
  });

  it("refuses the sed attacks in the script reader itself, so they stay refused without --sandbox", async () => {
    const sed = SCRIPT_ATTACKS.filter((a) => a.family.startsWith("sed"));
    const accepted: string[] = [];
    for (const attack of sed) {
      const script = await sedScript(attack.command);
      if (script === undefined || checkSedScript(script) === null) accepted.push(attack.command);
    }
    expect(accepted).toEqual([]);
  });
});
