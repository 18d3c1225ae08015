// Redirections of a tree-sitter-bash command: operator, descriptor and target, with the spellings bash and tree-sitter read apart refused.
import type { Node as SyntaxNode } from "web-tree-sitter";
import type { ShellRedirect } from "./shell-parse.js";
import { decodeWord, flagExpansion, type ShellWord, type WordSink } from "./shell-words.js";

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
