// `[ ... ]` as bash runs it: the program `[` with one argument per blank-separated word, whatever tree-sitter's expression tree says.
import type { Node as SyntaxNode } from "web-tree-sitter";
import { decodeWord } from "./shell-words.js";
import type { ShellWord, WordSink } from "./shell-words.js";

/** Nodes tree-sitter builds inside `[ ]` that only group words; their leaves are the words. */
const GROUPS = new Set(["unary_expression", "binary_expression"]);
/** Operator tokens that are plain words to bash inside `[ ]`. `<`, `>`, `&&`, `(`... are not: bash reads them as redirections or control operators. */
const WORD_TOKENS = new Set(["!", "=", "==", "!="]);

interface Atom {
  word: ShellWord;
  start: number;
  end: number;
}

/**
 * The argv of a `[ ... ]` test command (`[`, its words, `]`), or null after recording a problem
 * when it is `[[ ]]`, when it holds a token bash would read as something other than a word, or
 * when two of its pieces are not separated by blanks (bash would then see other words).
 */
export function testCommandWords(node: SyntaxNode, source: string, sink: WordSink): ShellWord[] | null {
  const open = node.firstChild;
  const close = node.lastChild;
  if (open?.type !== "[" || close?.type !== "]" || node.childCount < 2) {
    sink.problems.push("unsupported shell syntax: test_command");
    return null;
  }
  const atoms: Atom[] = [{ word: { value: "[", glob: false }, start: open.startIndex, end: open.endIndex }];
  for (const child of node.children.slice(1, -1)) {
    if (child !== null && !collectAtoms(child, sink, atoms)) return null;
  }
  atoms.push({ word: { value: "]", glob: false }, start: close.startIndex, end: close.endIndex });
  for (let i = 1; i < atoms.length; i++) {
    const gap = source.slice((atoms[i - 1] as Atom).end, (atoms[i] as Atom).start);
    if (!/^[ \t]+$/.test(gap)) {
      sink.problems.push("a `[ ]` test whose words are not separated by blanks");
      return null;
    }
  }
  return atoms.map((a) => a.word);
}

function collectAtoms(node: SyntaxNode, sink: WordSink, atoms: Atom[]): boolean {
  if (GROUPS.has(node.type)) {
    for (const child of node.children) if (child !== null && !collectAtoms(child, sink, atoms)) return false;
    return true;
  }
  let word: ShellWord | null;
  if (node.type === "test_operator" || (!node.isNamed && WORD_TOKENS.has(node.type))) word = { value: node.text, glob: false };
  else if (node.isNamed) word = decodeWord(node, sink);
  else {
    sink.problems.push(`\`${node.type}\` inside \`[ ]\` (bash reads it as an operator of the shell, not a word)`);
    return false;
  }
  if (word === null) return false;
  atoms.push({ word, start: node.startIndex, end: node.endIndex });
  return true;
}
