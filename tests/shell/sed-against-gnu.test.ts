// The sed script reader against GNU sed itself: for random scripts it accepts, `sed --sandbox` must find no command that runs a program or opens a file.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkSedScript } from "../../src/shell/rules-sed.js";
import { sandboxSupport } from "../../src/shell/child-sandbox.js";
import { makeTempDir } from "../helpers/tool-context.js";

/** Pieces of regexes and texts that meet where a reader can lose track: brackets, classes, delimiters, escapes, separators. */
const PIECES = ["[", "]", "^", "[:alpha:]", "[:", ":]", "[.", ".]", "[=", "=]", "/", "|", ",", ";", "e id", "w x", "\\", "\\n", "\n", "x", ".", "]]", "s", "#", "}", " ", "[]", "[^]"];
const piece = fc.array(fc.constantFrom(...PIECES), { maxLength: 6 }).map((p) => p.join(""));
const delimiter = fc.constantFrom("/", "|", ",", "]", "[", "x", ";");
const address = fc.oneof(
  fc.constantFrom("", "1", "$", "2~3", "0,"),
  piece.map((p) => `/${p}/`),
  fc.tuple(delimiter, piece).map(([d, p]) => `\\${d}${p}${d}`),
  fc.tuple(piece, fc.constantFrom("I", "M", "")).map(([p, f]) => `1,/${p}/${f}`),
);
const simple = fc.constantFrom("p", "e id", "w out", "r in", "R in", "W out", "=", "l 3", "q", "}", "{", "N", "n");
const substitute = fc
  .tuple(fc.constantFrom("s", "y"), delimiter, piece, piece, fc.constantFrom("", "g", "p", "e", "w out", " g", "2", "I"))
  .map(([c, d, a, b, f]) => `${c}${d}${a}${d}${b}${d}${f}`);
const text = fc.tuple(fc.constantFrom("a", "i", "c", "a\\", "a\\\n"), piece).map(([c, p]) => `${c}${p}`);
const command = fc.tuple(address, fc.constantFrom("", "!", " "), fc.oneof(simple, substitute, substitute, text)).map((parts) => parts.join(""));
const script = fc.array(command, { minLength: 1, maxLength: 3 }).chain((cs) => fc.constantFrom(";", "\n", " ; ").map((sep) => cs.join(sep)));
/** One or two `-e` scripts: sed joins them with newlines, so text and escapes continue across. */
const expressions = fc.array(script, { minLength: 1, maxLength: 2 });

const SAMPLE_SEED = 20_261_201;
const SAMPLES = 6_000;
const MAX_CHECKED = 200;
const SANDBOX_ERROR = /disabled in sandbox mode/;

/**
 * Runs sed once per case in one bash loop (a process per case from node costs several times more); its output goes
 * to a file read back by a builtin, as a `$(...)` would cost a subshell per case.
 */
function sandboxVerdicts(cases: readonly string[][], file: string): boolean[] {
  writeFileSync(file, cases.map((exprs) => [String(exprs.length), ...exprs].join("\0") + "\0").join(""));
  const loop = `while IFS= read -r -d '' n; do a=(); for ((k=0;k<n;k++)); do IFS= read -r -d '' e; a+=(-e "$e"); done
    sed --sandbox -n "\${a[@]}" </dev/null >"$1.out" 2>&1; IFS= read -r -d '' out <"$1.out"; if [[ $out == *"sandbox mode"* ]]; then echo X; else echo .; fi; done < "$1"`;
  const result = spawnSync("bash", ["-c", loop, "bash", file], { encoding: "utf8" });
  return result.stdout.trim().split("\n").map((mark) => mark === "X");
}

describe.runIf(sandboxSupport().sed)("sed reader against GNU sed", () => {
  it("never accepts a script in which sed finds e, w, r, R or W (the s///e and s///w flags too)", async () => {
    const accepted: string[][] = [];
    for (const exprs of fc.sample(expressions, { seed: SAMPLE_SEED, numRuns: SAMPLES })) {
      if (accepted.length < MAX_CHECKED && exprs.some((e) => /[ewrRW]/.test(e)) && checkSedScript(exprs.join("\n")) === null) accepted.push(exprs);
    }
    expect(accepted.length).toBe(MAX_CHECKED);
    const verdicts = sandboxVerdicts(accepted, join(await makeTempDir(), "cases"));
    expect(verdicts.length).toBe(accepted.length);
    expect(accepted.filter((_, i) => verdicts[i])).toEqual([]);
  });

  it("refuses what sed reads as e, w, r, R or W, whatever the brackets, delimiters and text around them", async () => {
    const scripts = [
      "s/[/x/g;s]]/R/;e id > ../outside/PWNED #]g", "1,/[/p;s]]/e id #]g", "s/[]/]/x/;e id", "s/[^]/]/x/;w out", "s/[[:alpha:]/]/x/;r /etc/hostname",
      "y/[/x/;e id", "s|[|]|x|;e id", "\\,[,],p;W out", "1a\\\nfoo\ne id", "s/a/b/ w out", "s/a/b/gpe", "1!{e id\n}", "$!N;R in",
    ];
    for (const text of scripts) expect(checkSedScript(text), text).not.toBeNull();
    const verdicts = sandboxVerdicts(scripts.map((s) => [s]), join(await makeTempDir(), "cases"));
    expect(verdicts).toEqual(scripts.map(() => true));
  });
});
