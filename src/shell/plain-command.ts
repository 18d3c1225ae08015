// Plain commands read without the grammar: words of unremarkable characters between blanks, alone or joined by pipes and
// lists, as bash and the full parser read them.
import type { ParsedShell } from "./shell-parse.js";

/**
 * Characters of a plain argument: nothing bash quotes, expands, splits on or treats as an operator
 * (no quotes, `\`, `$`, `` ` ``, `*?[]{}~`, `;&|<>()`, `#`, `!`, `^`, newline). Such a word is
 * passed to the program exactly as written, and tree-sitter-bash reads it so too.
 */
const PLAIN_WORD = /^[A-Za-z0-9_./:,+=%@-]+$/;
/**
 * The program is stricter: no `=` (`NAME=value` first is an assignment), no leading `-`, and none of
 * `:+,%@`, which tree-sitter-bash misreads in a first word (`a+:a`, `a%a`, `a@a` do not parse there).
 */
const PLAIN_PROGRAM = /^[A-Za-z0-9_./][A-Za-z0-9_./-]*$/;
/**
 * First words the grammar reads as syntax of their own: bash's reserved words, and the declaration
 * commands tree-sitter-bash parses apart (`export`, `declare`...). Lines starting with them go to the grammar.
 */
const RESERVED = new Set([
  ...["if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in", "function", "time", "coproc"],
  ...["export", "declare", "typeset", "local", "readonly", "unset", "unsetenv"],
]);
/** Longer lines go to the full parser, which bounds them itself. */
const MAX_PLAIN_CHARS = 4_096;

/** The operators between the commands of a plain line: pipes and lists (`&` alone, `|&`, `;;` and the rest are not plain). */
const PLAIN_OPERATOR = /(&&|\|\||[|;])/;

/**
 * The parse of a plain line, exactly as `parseShellSync` with the grammar gives it (a property test
 * holds the two together): simple commands of plain words (`ls -la src`, `git status`, `echo hi`),
 * one, or several joined by `|`, `&&`, `||` or `;` (`git log --oneline | head -5`); undefined for
 * anything else, which then needs the grammar. Pure and cheap: the common command is judged without
 * loading the 1.4 MB WebAssembly parser at all.
 */
export function parsePlainCommand(command: string): ParsedShell | undefined {
  if (command.length > MAX_PLAIN_CHARS) return undefined;
  // Split on the operators, the capture keeps them: commands at even places, operators between.
  const parts = command.split(PLAIN_OPERATOR);
  const commands: ParsedShell["commands"] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const words = plainWords(parts[i] as string);
    if (words === undefined) return undefined;
    commands.push({ argv: words.map((value) => ({ value, glob: false })), assignments: [], redirects: [], nested: false });
  }
  return { commands, problems: [] };
}

/** The words of one plain simple command, or undefined when it is not one (empty included). */
function plainWords(text: string): string[] | undefined {
  const words = text.split(/[ \t]+/).filter((word) => word !== "");
  const [program, ...args] = words;
  if (program === undefined || !PLAIN_PROGRAM.test(program) || RESERVED.has(program)) return undefined;
  // A lone `==` is an operator token to tree-sitter-bash (of `[[ ]]`), though a word to bash.
  if (!args.every((word) => PLAIN_WORD.test(word) && word !== "==")) return undefined;
  return words;
}
