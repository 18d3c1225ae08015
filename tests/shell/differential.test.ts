// Differential check of the parser against bash itself: for random commands the gate calls safe, bash must run exactly the commands the parser saw, substitutions included.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkCommandSafety } from "../../src/shell/safety.js";
import { parseShell } from "../../src/shell/shell-parse.js";
import type { ShellWord } from "../../src/shell/shell-parse.js";
import { wordVariants } from "../../src/shell/word-reads.js";
import { makeTempDir } from "../helpers/tool-context.js";

const PROGRAMS = ["ls", "cat", "git", "sort", "sed", "tail", "echo", "grep", "find", "head", "printf", "wc", "jq", "uniq", "date", "pwd", "true", "tree", "test", "["];
/** Builtins are disabled so that the logging stubs on PATH run instead. */
const BUILTINS = "enable -n echo printf pwd true test [; ";
const PIECES = [
  "-o", "-n", "-f", "x", "'a b'", '"c d"', "\\\n", "\\ ", " #c", ";", " && ", "\n", "{", "}", "(", ")", "*", "'", '"', "\\", "~", "=",
  "<", ">", "/dev/null", "2>&1", " ", " ", " ", "\t", "!", "<<", "EOF", "-", "--", "+1f", "p", "s/a/b/", "-e", "&", "-i", "status", "push",
  "\\;", '"\\', "\\\"", "'\\''", "2", ">&", "<&", "-i2", '""', "''", '" "', "\\x", "\\\\", "<<<", "<<'EOF'\nx\nEOF\n", ">&-", "0<", "2>",
  "\n\\\n", " \\\n", "\\\n\n", "#x\n", "1>", "9>", "$(", "`", " $(echo a)", '"$(date)"', '"x`pwd`y"', " <(", "$(ls)", " ]", " -n", " -f",
];

const command = fc
  .tuple(fc.constantFrom(...PROGRAMS), fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.constantFrom(...PROGRAMS).map((p) => ` ${p}`), fc.constant(" ")), { maxLength: 9 }))
  .map(([program, pieces]) => program + pieces.join(""));

/** Commands whose words are substitutions of the stubs, nested, quoted or not, under programs that only print their arguments. */
const inner = fc
  .tuple(fc.constantFrom(...PROGRAMS.slice(0, -2)), fc.array(fc.constantFrom("x", "-n", "'a b'", "s/a/b/", "status"), { maxLength: 2 }))
  .map(([program, args]) => [program, ...args].join(" "));
const substitution = fc.oneof(
  inner.map((c) => `$(${c})`),
  inner.map((c) => `"$(${c})"`),
  inner.map((c) => `\`${c}\``),
  inner.map((c) => `"a\`${c}\`b"`),
  inner.map((c) => `$(echo $(${c}))`),
  inner.map((c) => `"$(echo "$(${c})")"`),
  inner.map((c) => `x$(${c})y`),
);
const withSubstitutions = fc
  .tuple(fc.constantFrom("echo", "printf '%s\\n'", "true", "test -n", "test"), fc.array(fc.oneof(substitution, fc.constantFrom("x", "'y z'")), { minLength: 1, maxLength: 3 }), fc.constantFrom("", "; pwd", " && ls x"))
  .map(([outer, words, tail]) => `${outer} ${words.join(" ")}${tail}`);

const SAMPLE_SEED = 20_240_601;
const MAX_CHECKED = 60;
const MAX_CHECKED_SUBSTITUTIONS = 8;
const PARALLEL = 8;

interface Outcome {
  text: string;
  ran: string[][];
  wrote: string[];
}

/** Runs one command in its own folder with the logging stubs on PATH; resolves to what ran and what files appeared. */
function runInBash(text: string, bin: string, dir: string): Promise<Outcome> {
  const work = join(dir, "work");
  const log = join(dir, "log");
  mkdirSync(work, { recursive: true });
  return new Promise((resolve) => {
    const child = spawn("/bin/bash", ["-c", BUILTINS + text], { cwd: work, env: { PATH: bin, HOME: "/nonexistent", LOG: log }, stdio: "ignore", timeout: 2_000 });
    child.on("close", () => {
      const raw = existsSync(log) ? readFileSync(log, "latin1") : "";
      const ran = raw.split("\x1e").filter((r) => r !== "").map((r) => r.replace(/\0$/, "").split("\0"));
      resolve({ text, ran, wrote: readdirSync(work) });
    });
  });
}

/** A computed word's value once every substitution in it has printed nothing (the stubs print nothing). */
function withoutSubstitutions(value: string): string {
  let text = value.replace(/`[^`]*`/g, "");
  for (let before = ""; before !== text; ) [before, text] = [text, text.replace(/\$\([^()]*\)/g, "")];
  return text;
}

/** Whether bash's argv fits the parser's words: an empty unquoted substitution leaves no word, a quoted one an empty word. */
function matchesArgv(words: readonly ShellWord[], argv: readonly string[]): boolean {
  const expected = words.flatMap((w) => {
    if (w.dynamic !== true) return [w.value];
    const rest = withoutSubstitutions(w.value);
    return w.glob && rest === "" ? [] : [rest];
  });
  return expected.length === argv.length && expected.every((value, i) => value === argv[i]);
}

describe("parser against bash", () => {
  it("bash runs exactly the simple commands the parser reported, and writes nothing, for commands the gate calls safe", async () => {
    const root = await makeTempDir();
    const bin = join(root, "bin");
    mkdirSync(bin);
    for (const program of PROGRAMS) {
      writeFileSync(join(bin, program), `#!/bin/bash\n{ printf '%s\\0' "\${0##*/}" "$@"; printf '\\036'; } >> "$LOG"\n`);
      chmodSync(join(bin, program), 0o755);
    }
    const safe: string[] = [];
    for (const text of new Set(fc.sample(command, { seed: SAMPLE_SEED, numRuns: 3_000 }))) {
      if (safe.length < MAX_CHECKED && (await checkCommandSafety(text)) === "safe") safe.push(text);
    }
    expect(safe.length).toBe(MAX_CHECKED);
    const substituted: string[] = [];
    for (const text of new Set(fc.sample(withSubstitutions, { seed: SAMPLE_SEED, numRuns: 500 }))) {
      if (substituted.length < MAX_CHECKED_SUBSTITUTIONS && (await checkCommandSafety(text)) === "safe") substituted.push(text);
    }
    expect(substituted.length).toBe(MAX_CHECKED_SUBSTITUTIONS);
    safe.push(...substituted);
    const outcomes: Outcome[] = [];
    for (let i = 0; i < safe.length; i += PARALLEL) {
      const batch = safe.slice(i, i + PARALLEL);
      outcomes.push(...(await Promise.all(batch.map((text, j) => runInBash(text, bin, join(root, `run-${i + j}`))))));
    }
    for (const { text, ran, wrote } of outcomes) {
      expect(wrote, text).toEqual([]);
      const parsed = await parseShell(text);
      // Pipelines run concurrently (their log lines interleave) and wildcards expand: compare the rest exactly.
      // `<( )` runs alongside the command, so its log lines interleave too.
      if (/\||<\(/.test(text) || parsed.commands.some((c) => c.argv.some((w) => (w.glob && w.dynamic !== true) || w.value.startsWith("~")))) continue;
      // Stubs print nothing, so a substitution becomes "" inside quotes and no word at all outside them.
      const seen = parsed.commands.map((c) => c.argv);
      for (const argv of ran) expect(seen.some((words) => matchesArgv(words, argv)), `${text}: ran ${JSON.stringify(argv)}`).toBe(true);
    }
  });
});

/** Pieces of one word: brace syntax bare, quoted and escaped, so quoting decides what bash expands. */
const BRACE_PIECES = ["a", "b", ".e", "v", ",", "{", "}", "'}'", "'{'", "','", "\\}", "\\{", "\\,", '"}"', '"a,b"', "1..3", "{x,y}", "''"];
const braceWord = fc.array(fc.constantFrom(...BRACE_PIECES), { minLength: 1, maxLength: 7 }).map((pieces) => pieces.join(""));

describe("brace expansion against bash", () => {
  it("every word the parser accepts becomes, in the gate, the words bash makes of it", async () => {
    const words = [...new Set(fc.sample(braceWord, { seed: SAMPLE_SEED, numRuns: 400 }))];
    const accepted: Array<{ text: string; word: ShellWord }> = [];
    for (const text of words) {
      const parsed = await parseShell(`printf '%s\\0' ${text}`);
      const argv = parsed.commands[0]?.argv;
      if (parsed.problems.length === 0 && parsed.commands.length === 1 && argv?.length === 3) accepted.push({ text, word: argv[2] as ShellWord });
    }
    // One bash for all words; globbing off so only brace expansion and quote removal apply.
    const script = `set -f; ${accepted.map((w) => `printf '%s\\0' ${w.text}; printf '\\036'`).join("\n")}`;
    const out = spawnSync("/bin/bash", ["-c", script], { encoding: "latin1" }).stdout;
    const bash = out.split("\x1e").slice(0, -1).map((r) => r.split("\0").slice(0, -1));
    expect(accepted.length).toBeGreaterThan(100);
    const variants = (word: ShellWord): unknown => {
      const found = wordVariants(word);
      return "values" in found ? found.values.map((v) => v.value) : found.reason;
    };
    expect(accepted.map((w) => [w.text, variants(w.word)])).toEqual(accepted.map((w, i) => [w.text, bash[i]]));
  });
});
