// Plain commands are judged without the grammar: the fast reading must be the grammar's reading, and must know when it is not.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadShellParser, parsePlainCommand, parseWithGrammar } from "../../src/shell/shell-parse.js";
import { runModuleScript, sourceUrl } from "../helpers/module-script.js";

const PLAIN = "abcxyzABZ0189_./:,+=%@-";
const SPECIAL = [..."'\"\\$`*?[]{}~;&|<>()#!^\n\r\x01", "\u00a0", "é"];

describe("plain commands", () => {
  it("read exactly as the grammar reads them, for any words of plain characters between blanks, alone or joined by pipes and lists", async () => {
    await loadShellParser();
    const word = fc.string({ unit: fc.constantFrom(...PLAIN), minLength: 1, maxLength: 12 });
    const blanks = fc.string({ unit: fc.constantFrom(" ", "\t"), minLength: 1, maxLength: 3 });
    // First words also from bash's builtins and keywords, which the grammar may read as syntax of their own.
    const builtin = fc.constantFrom("cd", "echo", "printf", "pwd", "test", "true", "type", "command", "export", "declare", "typeset", "local", "readonly", "unset", "unsetenv", "exec", "eval", "source", "set", "shopt", "alias", "trap", "ulimit", "read", "let", "wait", "kill", "git", "ls");
    // Bash's reserved words, first in any command of a line or as arguments (where they are words).
    const reserved = fc.constantFrom("if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "in", "do", "done", "while", "until", "time", "function", "coproc");
    const first = fc.oneof({ arbitrary: word, weight: 4 }, { arbitrary: builtin, weight: 2 }, { arbitrary: reserved, weight: 1 });
    const arg = fc.oneof({ arbitrary: word, weight: 6 }, { arbitrary: reserved, weight: 1 });
    const simple = fc
      .tuple(first, blanks, fc.array(fc.tuple(arg, blanks), { maxLength: 5 }), fc.boolean())
      .map(([program, gap, parts, lead]) => (lead ? " " : "") + program + gap + parts.map(([w, b]) => w + b).join(""));
    // Joined by pipes and lists, and by operators that are not plain, with or without blanks around them.
    const op = fc.oneof({ arbitrary: fc.constantFrom("|", "&&", "||", ";"), weight: 6 }, { arbitrary: fc.constantFrom("&", "|&", ";;", "|||", "&&&"), weight: 1 });
    const operator = fc.tuple(op, fc.constantFrom("", " ", "\t")).map(([o, gap]) => gap + o + gap);
    const tail = fc.oneof({ arbitrary: fc.constant(""), weight: 8 }, { arbitrary: fc.constantFrom(";", "|", " &&"), weight: 1 });
    const line = fc
      .tuple(simple, fc.array(fc.tuple(operator, simple), { maxLength: 3 }), tail)
      .map(([head, rest, tail]) => head + rest.map(([op, cmd]) => op + cmd).join("") + tail);
    let plain = 0;
    let joined = 0;
    fc.assert(
      fc.property(line, (command) => {
        const fast = parsePlainCommand(command);
        if (fast === undefined) return;
        plain++;
        if (fast.commands.length > 1) joined++;
        expect(fast).toEqual(parseWithGrammar(command));
      }),
      { numRuns: Number(process.env["PLAIN_COMMAND_RUNS"] ?? 3000) },
    );
    expect(plain).toBeGreaterThan(200);
    expect(joined).toBeGreaterThan(50);
  });

  it("leaves to the grammar every line with a character bash treats specially, an assignment first, or a reserved word first", () => {
    // `;` and `|` join commands (below); inside a word every one of these leaves the line to the grammar.
    for (const c of SPECIAL.filter((c) => c !== ";" && c !== "|")) expect(parsePlainCommand(`echo a${c}b`), JSON.stringify(c)).toBeUndefined();
    expect(parsePlainCommand("test a == a")).toBeUndefined();
    for (const program of ["a+:a", "a%a", "a@a", "-", "-x", "a=b", "a,b"]) expect(parsePlainCommand(`${program} x`), program).toBeUndefined();
    for (const line of ["FOO=1 env", "time ls", "if true", "for x", "function f", "coproc x", "export A", "declare -p X", "unset PATH", "local x", "", "   ", "x".repeat(5000)]) {
      expect(parsePlainCommand(line), line).toBeUndefined();
    }
    // Background jobs, stderr pipes, case terminators, an operator with no command on one side, a reserved word after one.
    for (const line of ["ls & pwd", "ls |& cat", "ls ;; pwd", "ls |||| pwd", "ls |", "| ls", "ls &&", "; ls", "ls; ", "ls | time cat", "ls && if"]) {
      expect(parsePlainCommand(line), line).toBeUndefined();
    }
    expect(parsePlainCommand("git log --oneline | head -5 && pwd")?.commands.map((c) => c.argv.map((w) => w.value))).toEqual([["git", "log", "--oneline"], ["head", "-5"], ["pwd"]]);
    expect(parsePlainCommand("ls -la --color=never src/a.ts")?.commands[0]?.argv.map((w) => w.value)).toEqual(["ls", "-la", "--color=never", "src/a.ts"]);
  });

  it("judges a plain safe command in a new process without loading the grammar, and anything else with it", () => {
    const safety = sourceUrl("src/shell/safety.ts");
    const parse = sourceUrl("src/shell/shell-parse.ts");
    const script = `
      const { assessCommand } = await import(${JSON.stringify(safety)});
      const { isShellParserLoaded } = await import(${JSON.stringify(parse)});
      const out = [];
      const judge = async (command, approvals) => out.push([command, (await assessCommand(command, approvals, { cwd: process.cwd(), roots: [process.cwd()] })).verdict, isShellParserLoaded()]);
      await judge("echo hi");
      await judge("ls -la src");
      await judge("cat notes.txt", { denied: ["cat notes.txt"] });
      await judge("git log --oneline | head -5 && pwd");
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
      ["git log --oneline | head -5 && pwd", "safe", false],
      ["rm -rf build", "needs_approval", true],
      ["cat notes.txt", "denied", true],
      ["echo 'quoted'", "safe", true],
    ]);
  });
});
