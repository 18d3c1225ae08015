// Where tree-sitter-bash and bash may read the same text differently: checks run on the raw text and the tree's leaves.
import type { Node as SyntaxNode, Tree } from "web-tree-sitter";

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
export function lexicalProblems(text: string, tree: Tree): string[] {
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
