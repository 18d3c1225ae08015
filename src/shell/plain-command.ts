// Plain commands read without the grammar: words of unremarkable characters between blanks, alone or joined by pipes and
// lists. It exists so the common command is judged without loading the 1.4 MB grammar, and it is safe because its parse
// is exactly the grammar's (a property test holds them together); anything else goes to the grammar.
import type { ParsedShell } from "./shell-parse.js";

/** Nothing bash quotes, expands, splits on or treats as an operator: the word reaches the program as written. */
const PLAIN_WORD = /^[A-Za-z0-9_./:,+=%@-]+$/;
/** No `=` (an assignment), no leading `-`, none of `:+,%@` (`a+:a`, `a%a`, `a@a` do not parse as a first word to tree-sitter). */
const PLAIN_PROGRAM = /^[A-Za-z0-9_./][A-Za-z0-9_./-]*$/;
/** First words the grammar reads as syntax of their own: reserved words, and the declarations tree-sitter parses apart. */
const RESERVED = new Set([
  ...["if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in", "function", "time", "coproc"],
  ...["export", "declare", "typeset", "local", "readonly", "unset", "unsetenv"],
]);
const MAX_PLAIN_CHARS = 4_096;
/** Pipes and lists; `&` alone, `|&`, `;;` and the rest are not plain. */
const PLAIN_OPERATOR = /(&&|\|\||[|;])/;

/** The parse of a plain line (`ls -la src`, `git log --oneline | head -5`), as `parseWithGrammar` gives it; undefined for any other line. */
export function parsePlainCommand(command: string): ParsedShell | undefined {
  if (command.length > MAX_PLAIN_CHARS) return undefined;
  const parts = command.split(PLAIN_OPERATOR);
  const commands: ParsedShell["commands"] = [];
  // Commands at even places, the captured operators between.
  for (let i = 0; i < parts.length; i += 2) {
    const words = (parts[i] as string).split(/[ \t]+/).filter((word) => word !== "");
    const [program, ...args] = words;
    if (program === undefined || !PLAIN_PROGRAM.test(program) || RESERVED.has(program)) return undefined;
    // A lone `==` is an operator token to tree-sitter-bash (of `[[ ]]`), though a word to bash.
    if (!args.every((word) => PLAIN_WORD.test(word) && word !== "==")) return undefined;
    commands.push({ argv: words.map((value) => ({ value, glob: false })), assignments: [], redirects: [], nested: false });
  }
  return { commands, problems: [] };
}
