// Shell words from tree-sitter-bash nodes: the literal value after quoting, or a problem when the shell would expand it.
import type { Node as SyntaxNode } from "web-tree-sitter";

/** One argument as the shell will pass it, when that is knowable without running anything. */
export interface ShellWord {
  /** The value after quote removal (`'a;b'` → `a;b`, `a\ b` → `a b`). A leading `~` is kept as written. */
  value: string;
  /** True when unquoted `* ? [ { }` remain, so the shell may expand the word into other or several words. */
  glob: boolean;
  /**
   * True when part of the word is computed when the command runs (a command substitution whose
   * inner commands are judged on their own): `value` is then not what the program receives.
   */
  dynamic?: boolean;
}

/** Where the walker collects what it did not understand, and what substitutions would run. */
export interface WordSink {
  problems: string[];
  /** Called with the statements inside `$( )`, backticks and `<( )`, so deny rules can see them. */
  walkNested(node: SyntaxNode): void;
}

const EXPANSION_PROBLEMS: Readonly<Record<string, string>> = {
  command_substitution: "command substitution $( ) or backticks",
  process_substitution: "process substitution <( ) or >( )",
  simple_expansion: "variable expansion ($NAME)",
  expansion: "parameter expansion (${...})",
  arithmetic_expansion: "arithmetic expansion $(( ))",
  brace_expression: "brace expansion {a..b}",
  ansi_c_string: "ANSI-C quoting $'...'",
  translated_string: "locale quoting $\"...\"",
};

const GLOB_CHARS = new Set(["*", "?", "[", "{", "}"]);

/**
 * Decodes a word-like node (word, quoted strings, concatenations, numbers).
 * Returns null, after recording why in `sink.problems`, when any part is an
 * expansion or substitution or a node this module does not know.
 */
export function decodeWord(node: SyntaxNode, sink: WordSink): ShellWord | null {
  switch (node.type) {
    case "word":
      return decodeUnquoted(node.text, sink);
    case "number":
      return /^[-+]?[0-9A-Za-z#_]+$/.test(node.text) ? { value: node.text, glob: false } : unknown(node, sink);
    case "raw_string":
      return { value: node.text.slice(1, -1), glob: false };
    case "string":
      return decodeDoubleQuoted(node, sink);
    case "concatenation":
      return decodeConcatenation(node, sink);
    default:
      return flagExpansion(node, sink) ? null : unknown(node, sink);
  }
}

/**
 * Records the problem of an expansion node (and walks the commands inside a
 * substitution). Returns false when the node is not an expansion at all.
 */
export function flagExpansion(node: SyntaxNode, sink: WordSink): boolean {
  const problem = EXPANSION_PROBLEMS[node.type];
  if (problem === undefined) return false;
  sink.problems.push(problem);
  if (node.type === "command_substitution" || node.type === "process_substitution") sink.walkNested(node);
  return true;
}

function unknown(node: SyntaxNode, sink: WordSink): null {
  sink.problems.push(node.isNamed ? `unsupported word syntax: ${node.type}` : `unexpected token ${JSON.stringify(node.text)}`);
  return null;
}

function decodeConcatenation(node: SyntaxNode, sink: WordSink): ShellWord | null {
  let value = "";
  let glob = false;
  for (const child of node.children) {
    if (child === null) continue;
    const part = decodeWord(child, sink);
    if (part === null) return null;
    value += part.value;
    glob ||= part.glob;
  }
  return { value, glob };
}

/** The value comes from the raw text between the quotes: tree-sitter leaves blank-only content out of its children. */
function decodeDoubleQuoted(node: SyntaxNode, sink: WordSink): ShellWord | null {
  for (const child of node.namedChildren) {
    if (child !== null && child.type !== "string_content") {
      if (!flagExpansion(child, sink)) unknown(child, sink);
      return null;
    }
  }
  const raw = node.text;
  const value = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? unescapeDoubleQuoted(raw.slice(1, -1)) : null;
  if (value === null) sink.problems.push("a `$`, backtick or stray quote inside double quotes");
  return value === null ? null : { value, glob: false };
}

/** Inside double quotes a backslash escapes only `$ \` " \` and newline; a bare `$` or backtick is refused. */
function unescapeDoubleQuoted(text: string): string | null {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "$" || c === "`" || c === '"') return null;
    if (c !== "\\" || i + 1 >= text.length) {
      out += c;
      continue;
    }
    const next = text[i + 1] as string;
    if (next === "\n") i++;
    else if ("$`\"\\".includes(next)) {
      out += next;
      i++;
    } else out += c;
  }
  return out;
}

/** Unquoted text: a backslash makes the next character literal; wildcard and brace characters mark the word as expandable. */
function decodeUnquoted(text: string, sink: WordSink): ShellWord | null {
  let value = "";
  let glob = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "\\") {
      const next = text[i + 1];
      i++;
      if (next !== undefined && next !== "\n") value += next;
      continue;
    }
    if (c === "$" || c === "`") {
      sink.problems.push("an unparsed `$` or backtick");
      return null;
    }
    if (c === "\n") {
      sink.problems.push("a newline inside a word");
      return null;
    }
    if (GLOB_CHARS.has(c)) glob = true;
    value += c;
  }
  return { value, glob };
}
