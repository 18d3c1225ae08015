// Where tree-sitter-bash and bash may read the same text differently: traps in the raw text and the tree's leaves, redirections,
// and `[ ... ]` (to bash the program `[` with one argument per blank-separated word, whatever tree-sitter's expression tree says).
import type { ShellRedirect } from "./shell-parse.js";
import { appendWord, decodeWord, flagExpansion, type ShellWord, type SyntaxNode, type WordSink } from "./shell-words.js";

/**
 * Refused outright: bash joins `-\<newline>o` into `-o` where tree-sitter sees two words; tree-sitter drops a word starting with an
 * escaped blank; control characters such as CR are word characters to bash.
 */
const LEXICAL_TRAPS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\S\\\r?\n\S/, "a line continuation inside a word"],
  [/\\\r?\n[ \t]*[0-9]/, "a line continuation before a number (tree-sitter misreads `3<&0` there)"],
  [/(^|\n)[ \t]*\\\r?\n|\\\r?\n[ \t]*(\r?\n|$)/, "a line continuation next to an empty line (tree-sitter joins the lines around it)"],
  [/(^|\s)\\[ \t]/, "an escaped space or tab at the start of a word"],
  [/[\x00-\x08\x0b-\x1f\x7f]/, "control characters"],
];

/** A trap pattern, an operator token holding more than the operator, or text no leaf covers but blanks and line continuations. */
export function lexicalProblems(text: string, tree: { readonly rootNode: SyntaxNode }): string[] {
  const problems = LEXICAL_TRAPS.filter(([pattern]) => pattern.test(text)).map(([, problem]) => problem);
  const covered = new Uint8Array(text.length);
  const oddTokens: string[] = [];
  markLeaves(tree.rootNode, covered, oddTokens);
  if (oddTokens.length > 0) problems.push(`an operator run together with other text (${JSON.stringify(oddTokens[0])})`);
  for (let i = 0; i < text.length; i++) {
    if (covered[i] === 1) continue;
    const c = text[i] as string;
    if (c === " " || c === "\t" || c === "\n" || (c === "\r" && text[i + 1] === "\n")) continue;
    if (c === "\\" && (text[i + 1] === "\n" || (text[i + 1] === "\r" && text[i + 2] === "\n"))) continue;
    problems.push(`text the parser skipped at character ${i + 1} (${JSON.stringify(text.slice(i, i + 10))})`);
    break;
  }
  return problems;
}

/** Marks what each leaf covers; an operator token whose text is more than the operator (`-i<<`) is collected as odd. */
function markLeaves(node: SyntaxNode, covered: Uint8Array, oddTokens: string[]): void {
  if (node.childCount === 0) {
    covered.fill(1, node.startIndex, node.endIndex);
    if (!node.isNamed && node.text.trim() !== node.type && !node.isMissing) oddTokens.push(node.text);
    return;
  }
  for (const child of node.children) if (child !== null) markLeaves(child, covered, oddTokens);
}

export const REDIRECT_TYPES = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"]);
const HEREDOC_PARTS = new Set(["<<", "<<-", "heredoc_start", "heredoc_body", "heredoc_end"]);
/** Here-document delimiters whose end line tree-sitter finds where bash does: a plain name, whole-quoted or not. */
const HEREDOC_DELIMITER = /^(?:[A-Za-z_][A-Za-z0-9_]*|'[A-Za-z_][A-Za-z0-9_]*'|"[A-Za-z_][A-Za-z0-9_]*")$/;

/** One redirection node of `source`; null, with the problem recorded in `sink`, when it is not understood. */
export function parseRedirect(node: SyntaxNode, source: string, sink: WordSink): ShellRedirect | null {
  if (node.type === "heredoc_redirect") return parseHeredoc(node, sink);
  if (!REDIRECT_TYPES.has(node.type)) {
    sink.problems.push(`unsupported redirection syntax: ${node.type}`);
    return null;
  }
  let op = "";
  let fd: string | null = null;
  let target: ShellWord | null = null;
  let destinations = 0;
  node.children.forEach((child, index) => {
    if (child === null) return;
    if (node.fieldNameForChild(index) === "descriptor") fd = child.text;
    else if (!child.isNamed) op += child.type;
    else if (destinations++ === 0) target = decodeWord(child, sink);
  });
  if (destinations > (op.endsWith("-") ? 0 : 1)) sink.problems.push("words after a redirection (write redirections at the end)");
  if (fd !== null && !/^[0-9]+$/.test(fd)) sink.problems.push(`a redirection whose descriptor is written ${fd}`);
  // tree-sitter reads `0<x` as the word 0 and `<x`; bash reads a descriptor.
  if (fd === null && /(^|[\s;&|()])[0-9]+$/.test(source.slice(0, node.startIndex))) sink.problems.push("a number run together with a redirection");
  return { op, fd, target };
}

function parseHeredoc(node: SyntaxNode, sink: WordSink): ShellRedirect | null {
  for (const child of node.children) {
    if (child === null) continue;
    if (!HEREDOC_PARTS.has(child.type)) {
      sink.problems.push("a here-document combined with other syntax on its line");
      return null;
    }
    if (child.type === "heredoc_start" && !HEREDOC_DELIMITER.test(child.text)) {
      sink.problems.push(`a here-document delimiter written as ${child.text} (only NAME, 'NAME' or "NAME")`);
    }
    if (child.type !== "heredoc_body") continue;
    for (const part of child.namedChildren) {
      if (part !== null && part.type !== "heredoc_content" && !flagExpansion(part, sink)) sink.problems.push(`unsupported here-document content: ${part.type}`);
    }
  }
  return { op: "<<", fd: null, target: null };
}

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
  if (node.children.slice(1, -1).some((child) => child !== null && !collectAtoms(child, sink, inner))) return null;
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
