// Plain commands are judged without the grammar: the fast reading must be the grammar's reading, and must know when it is not.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsePlainCommand } from "../../src/permissions/plain-command.js";
import { loadShellParser, parseWithGrammar } from "../../src/permissions/shell-parse.js";
import { runModuleScript, sourceUrl } from "../helpers/module-script.js";

const PLAIN = "abcxyzABZ0189_./:,+=%@-";
const SPECIAL = [..."'\"\\$`*?[]{}~;&|<>()#!^\n\r\x01", "\u00a0", "é"];

describe("plain commands", () => {
  it("read exactly as the grammar reads them, for any words of plain characters between blanks", async () => {
    await loadShellParser();
    const word = fc.string({ unit: fc.constantFrom(...PLAIN), minLength: 1, maxLength: 12 });
    const blanks = fc.string({ unit: fc.constantFrom(" ", "\t"), minLength: 1, maxLength: 3 });
    // First words also from bash's builtins and keywords, which the grammar may read as syntax of their own.
    const builtin = fc.constantFrom("cd", "echo", "printf", "pwd", "test", "true", "type", "command", "export", "declare", "typeset", "local", "readonly", "unset", "unsetenv", "exec", "eval", "source", "set", "shopt", "alias", "trap", "ulimit", "read", "let", "wait", "kill", "git", "ls");
    const first = fc.oneof(word, builtin);
    const line = fc
      .tuple(first, blanks, fc.array(fc.tuple(word, blanks), { maxLength: 5 }), fc.boolean())
      .map(([program, gap, parts, lead]) => (lead ? " " : "") + program + gap + parts.map(([w, b]) => w + b).join(""));
    let plain = 0;
    fc.assert(
      fc.property(line, (command) => {
        const fast = parsePlainCommand(command);
        if (fast === undefined) return;
        plain++;
        expect(fast).toEqual(parseWithGrammar(command));
      }),
      { numRuns: Number(process.env["PLAIN_COMMAND_RUNS"] ?? 3000) },
    );
    expect(plain).toBeGreaterThan(200);
  });

  it("leaves to the grammar every line with a character bash treats specially, an assignment first, or a reserved word first", () => {
    for (const c of SPECIAL) expect(parsePlainCommand(`echo a${c}b`), JSON.stringify(c)).toBeUndefined();
    expect(parsePlainCommand("test a == a")).toBeUndefined();
    for (const program of ["a+:a", "a%a", "a@a", "-", "-x", "a=b", "a,b"]) expect(parsePlainCommand(`${program} x`), program).toBeUndefined();
    for (const line of ["FOO=1 env", "time ls", "if true", "for x", "function f", "coproc x", "export A", "declare -p X", "unset PATH", "local x", "", "   ", "x".repeat(5000)]) {
      expect(parsePlainCommand(line), line).toBeUndefined();
    }
    expect(parsePlainCommand("ls -la --color=never src/a.ts")?.commands[0]?.argv.map((w) => w.value)).toEqual(["ls", "-la", "--color=never", "src/a.ts"]);
  });

  it("judges a plain safe command in a new process without loading the grammar, and anything else with it", () => {
    const safety = sourceUrl("src/permissions/safety.ts");
    const parse = sourceUrl("src/permissions/shell-parse.ts");
    const script = `
      const { assessCommand } = await import(${JSON.stringify(safety)});
      const { isShellParserLoaded } = await import(${JSON.stringify(parse)});
      const out = [];
      const judge = async (command, approvals) => out.push([command, (await assessCommand(command, approvals, { cwd: process.cwd(), roots: [process.cwd()] })).verdict, isShellParserLoaded()]);
      await judge("echo hi");
      await judge("ls -la src");
      await judge("cat notes.txt", { denied: ["cat notes.txt"] });
      await judge("rm -rf build");
      await judge("cat notes.txt", { denied: ["cat *"] });
      await judge("echo 'quoted'");
      console.log(JSON.stringify(out));`;
    const run = runModuleScript(script);
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual([
      ["echo hi", "safe", false],
      ["ls -la src", "safe", false],
      ["cat notes.txt", "denied", false],
      ["rm -rf build", "needs_approval", true],
      ["cat notes.txt", "denied", true],
      ["echo 'quoted'", "safe", true],
    ]);
  });
});
