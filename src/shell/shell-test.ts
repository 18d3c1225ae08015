// `[ ... ]` as bash runs it: the program `[` with one argument per blank-separated word, whatever tree-sitter's expression tree says.
import type { Node as SyntaxNode } from "web-tree-sitter";
import { appendWord, decodeWord, type ShellWord, type WordSink } from "./shell-words.js";

/** Nodes tree-sitter builds inside `[ ]` that only group words; their leaves are the words. */
const GROUPS = new Set(["unary_expression", "binary_expression"]);
/** Tokens that are words (or parts) to bash inside `[ ]` (tree-sitter reads `~/x` as `~` and `/x`); `<`, `&&`, `(`... are syntax to bash. */
const WORD_TOKENS = new Set(["!", "=", "==", "!=", "~"]);

interface Atom { word: ShellWord; start: number; end: number }

/** The argv of a `[ ... ]` test; null, with a problem, for `[[ ]]`, a token bash reads as no word, or pieces not separated by blanks. */
export function testCommandWords(node: SyntaxNode, source: string, sink: WordSink): ShellWord[] | null {
  const open = node.firstChild;
  const close = node.lastChild;
  if (open?.type !== "[" || close?.type !== "]" || node.childCount < 2) {
    sink.problems.push("unsupported shell syntax: test_command");
    return null;
  }
  const inner: Atom[] = [];
  for (const child of node.children.slice(1, -1)) {
    if (child !== null && !collectAtoms(child, sink, inner)) return null;
  }
  const words = joinTouching(inner, source);
  const first = inner[0];
  const last = inner[inner.length - 1];
  const separated = first === undefined || (blanks(source, open.endIndex, first.start) && blanks(source, (last as Atom).end, close.startIndex));
  if (words === null || !separated) {
    sink.problems.push("a `[ ]` test whose words are not separated by blanks");
    return null;
  }
  return [{ value: "[", glob: false }, ...words, { value: "]", glob: false }];
}

/** Pieces with nothing between them are one word to bash (`~` `/x` is `~/x`); pieces must otherwise be blank-separated. */
function joinTouching(atoms: readonly Atom[], source: string): ShellWord[] | null {
  const words: ShellWord[] = [];
  for (let i = 0; i < atoms.length; i++) {
    const atom = atoms[i] as Atom;
    const previous = atoms[i - 1];
    if (previous !== undefined && previous.end === atom.start) appendWord(words[words.length - 1] as ShellWord, atom.word);
    else if (previous === undefined || blanks(source, previous.end, atom.start)) words.push({ ...atom.word });
    else return null;
  }
  return words;
}

function blanks(source: string, from: number, to: number): boolean {
  return /^[ \t]+$/.test(source.slice(from, to));
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
