// The shell parser's output: simple commands with decoded words and redirections, and a problem for everything not understood.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkCommandSafety } from "../../src/shell/safety.js";
import { parseShell } from "../../src/shell/shell-parse.js";
import type { ParsedShell } from "../../src/shell/shell-parse.js";

const argvOf = (parsed: ParsedShell): string[][] => parsed.commands.map((c) => c.argv.map((w) => w.value));

describe("parseShell", () => {
  it("splits pipelines, lists, subshells and groups into simple commands", async () => {
    const parsed = await parseShell("a 1 | b && (c; { d; }) || ! e");
    expect(argvOf(parsed)).toEqual([["a", "1"], ["b"], ["c"], ["d"], ["e"]]);
    expect(parsed.problems).toEqual([]);
  });

  it("removes quotes the way bash does", async () => {
    const parsed = await parseShell(`echo 'a;b' "c\\"d \\$x" e\\ f 'g'"h"i "" ~/x`);
    expect(argvOf(parsed)).toEqual([["echo", "a;b", 'c"d $x', "e f", "ghi", "", "~/x"]]);
  });

  it("marks unquoted wildcards and braces, but not quoted or escaped ones", async () => {
    const parsed = await parseShell(`ls *.ts '*.md' \\*.js a{b,c}`);
    expect(parsed.commands[0]?.argv.map((w) => [w.value, w.glob])).toEqual([
      ["ls", false],
      ["*.ts", true],
      ["*.md", false],
      ["*.js", false],
      ["a{b,c}", true],
    ]);
  });

  it("records assignments and the redirections of the command and of enclosing groups", async () => {
    const parsed = await parseShell("{ X=1 cat < in 2>&1; } > /dev/null");
    expect(parsed.commands).toEqual([
      {
        argv: [{ value: "cat", glob: false }],
        assignments: ["X=1"],
        redirects: [
          { op: ">", fd: null, target: { value: "/dev/null", glob: false } },
          { op: "<", fd: null, target: { value: "in", glob: false } },
          { op: ">&", fd: "2", target: { value: "1", glob: false } },
        ],
        nested: false,
      },
    ]);
  });

  it("reports every construct it does not fully understand", async () => {
    const cases: Array<[string, string]> = [
      ["cat >(tee x)", "process substitution >( ) (it writes)"],
      ["echo $HOME", "variable expansion ($NAME)"],
      ["echo ${X:-y}", "parameter expansion (${...})"],
      ["echo \"$X $(date)\"", "variable expansion ($NAME)"],
      ["echo $((1))", "arithmetic expansion $(( ))"],
      ["echo $'a'", "ANSI-C quoting $'...'"],
      ["ls &", "background job (&)"],
      ["f() { ls; }", "unsupported shell syntax: function_definition"],
      ["for a in b; do ls; done", "unsupported shell syntax: for_statement"],
      ["echo 'open", "the command does not parse as bash"],
      ["cat <<EOF\n$x\nEOF", "variable expansion ($NAME)"],
      ["cat <<EOF\n$(date)\nEOF", "command substitution $( ) or backticks"],
      ["[[ -f x ]]", "unsupported shell syntax: test_command"],
      ["[ a > b ]", "`>` inside `[ ]` (bash reads it as an operator of the shell, not a word)"],
      ["[ a && b ]", "`&&` inside `[ ]` (bash reads it as an operator of the shell, not a word)"],
      ["[ -f x]", "a `[ ]` test whose words are not separated by blanks"],
      ["echo `echo \\`touch x\\``", "a backtick substitution with a backslash or another backtick inside (write it with $( ))"],
      ["echo `echo 'a`'`", "a backtick substitution with a backslash or another backtick inside (write it with $( ))"],
    ];
    for (const [command, problem] of cases) expect((await parseShell(command)).problems, command).toContain(problem);
  });

  it("keeps the commands of substitutions as nested commands and marks the outer word as computed", async () => {
    const cases: Array<[string, Array<[string[], boolean]>, Array<[string, boolean, boolean]>]> = [
      ["echo `git push`", [[["git", "push"], true], [["echo", "`git push`"], false]], [["`git push`", true, true]]],
      ['echo "Today is $(date) ok"', [[["date"], true], [["echo", "Today is $(date) ok"], false]], [["Today is $(date) ok", false, true]]],
      ['echo "x`date`y"', [[["date"], true], [["echo", "x`date`y"], false]], [["x`date`y", false, true]]],
      ["wc -l $(ls)", [[["ls"], true], [["wc", "-l", "$(ls)"], false]], [["-l", false, false], ["$(ls)", true, true]]],
      ["diff <(sort a) b<(sort c)", [[["sort", "a"], true], [["sort", "c"], true], [["diff", "/dev/fd/63", "b/dev/fd/63"], false]], [["/dev/fd/63", false, false], ["b/dev/fd/63", false, false]]],
      ["x=$(rm a) ls", [[["rm", "a"], true], [["ls"], false]], []],
    ];
    for (const [command, commands, words] of cases) {
      const parsed = await parseShell(command);
      expect(parsed.problems, command).toEqual([]);
      expect(parsed.commands.map((c) => [c.argv.map((w) => w.value), c.nested]), command).toEqual(commands);
      const outer = parsed.commands[parsed.commands.length - 1];
      expect(outer?.argv.slice(1).map((w) => [w.value, w.glob, w.dynamic === true]), command).toEqual(words);
    }
  });

  it("reads `[ ... ]` as the program `[` with one argument per word", async () => {
    const parsed = await parseShell("[ ! -f x -a \"$(git status --porcelain)\" != '' ] && echo dirty");
    expect(parsed.problems).toEqual([]);
    expect(argvOf(parsed)).toEqual([["git", "status", "--porcelain"], ["[", "!", "-f", "x", "-a", "$(git status --porcelain)", "!=", "", "]"], ["echo", "dirty"]]);
    expect(argvOf(await parseShell("[ -f ~/x -a x\"y\"z = xyz ]"))).toEqual([["[", "-f", "~/x", "-a", "xyz", "=", "xyz", "]"]]);
  });

  it("accepts a here-document with a quoted delimiter as plain input", async () => {
    const parsed = await parseShell("cat <<'EOF'\n$(rm x) `y`\nEOF");
    expect(parsed.problems).toEqual([]);
    expect(parsed.commands[0]?.redirects).toEqual([{ op: "<<", fd: null, target: null }]);
  });
});

describe("composition", () => {
  it("never calls a command safe when an unsafe one is chained to a safe one in any way", async () => {
    const safeCommands = ["ls", "git status", "cat README.md", "echo 'a;b'"];
    const unsafeCommands = ["rm -rf x", "curl evil", "node -e 1", "echo x > f", "sh -c ls"];
    const joins = ["; ", " && ", " || ", " | ", "\n", " & "];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...safeCommands), fc.constantFrom(...joins), fc.constantFrom(...unsafeCommands), fc.boolean(), async (safe, join, unsafe, first) => {
        const command = first ? `${unsafe}${join}${safe}` : `${safe}${join}${unsafe}`;
        expect(await checkCommandSafety(command)).toBe("needs_approval");
      }),
      { numRuns: 200 },
    );
  });
});
