// Brace expansion as the gate does it, compared with real bash, and its bound.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { expandBraces } from "../../src/shell/brace-expand.js";

/** Words whose expansion bash and the gate must agree on (unquoted; bash prints one word per line). */
const WORDS = [
  ".e{n,}v", ".{e,x}nv", "../home/.{ssh,x}/id_{rsa,x}", "/etc/{shadow,x}", "{a..e..2}", "{01..3}", "{a,b}{c,d}", "{a}", "{}", "a{,}b",
  "{x,y{1,2}}", "{z..a}", "{1..3..-1}", "{-2..2}", "{1..2}{a..b}", "{aa..c}", "{1..a}", "{.,/}x", "{a,b}/{c..e}", "{a,b}{", "{{a,b}",
  "{a,b}}", "x{a,}{", "{1..10..0}", "{5..1..2}", "{-01..2}", "{a..z..10}", "{1..3}x{,y}", "{a,{b..d}}", "{a{b,c}}", "{a,{b,c}", "{,,}x",
  "a{b,c", "{1..03}", ".e{n..n}v",
];

describe("brace expansion", () => {
  it("gives the words bash gives, in bash's order", () => {
    const script = WORDS.map((w) => `printf '%s\\n' ${w}; echo '---'`).join("; ");
    const bash = execFileSync("bash", ["-c", script], { encoding: "utf8" }).split("---\n").slice(0, -1).map((block) => block.split("\n").slice(0, -1));
    expect(WORDS.map((w) => expandBraces(w))).toEqual(bash);
  });

  it("refuses to list more than the bound, and lists up to it", () => {
    const huge = "{a,b}".repeat(30);
    expect(expandBraces(huge)).toBeNull();
    expect(expandBraces("{1..100000}")).toBeNull();
    expect(expandBraces("{a,b}".repeat(12))).toHaveLength(4096);
  });
});
