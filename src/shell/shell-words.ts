// Shell words from tree-sitter-bash nodes: the literal value after quoting, or a problem when the shell would expand it.

/**
 * A node of the bash syntax tree, as much of it as the reader uses: web-tree-sitter's `Node` is one. Declared here so the
 * package's types never reach web-tree-sitter's own, which need types a user does not have.
 */
export interface SyntaxNode {
  readonly type: string;
  readonly text: string;
  readonly startIndex: number;
  readonly endIndex: number;
  readonly isNamed: boolean;
  readonly isMissing: boolean;
  readonly isError: boolean;
  readonly childCount: number;
  readonly children: ReadonlyArray<SyntaxNode | null>;
  readonly namedChildren: ReadonlyArray<SyntaxNode | null>;
  readonly firstChild: SyntaxNode | null;
  readonly lastChild: SyntaxNode | null;
  fieldNameForChild(index: number): string | null;
}

/**
 * One argument as the shell passes it, after quote removal (a leading `~` kept); `glob` when unquoted `* ? [ { }` or `$( )` remain;
 * `dynamic` when part is a substitution, shown as written.
 */
export interface ShellWord { value: string; glob: boolean; dynamic?: boolean }
/** Where the walker collects what it did not understand; `walkNested` judges the commands inside `$( )`, backticks and `<( )`. */
export interface WordSink { problems: string[]; walkNested(node: SyntaxNode): void }

const EXPANSION_PROBLEMS: Readonly<Record<string, string>> = {
  simple_expansion: "variable expansion ($NAME)",
  expansion: "parameter expansion (${...})",
  arithmetic_expansion: "arithmetic expansion $(( ))",
  brace_expression: "brace expansion {a..b}",
  ansi_c_string: "ANSI-C quoting $'...'",
  translated_string: "locale quoting $\"...\"",
};

/** What bash passes for `<( )`: the path of a pipe the substituted commands write to. */
export const PROCESS_SUBSTITUTION_PATH = "/dev/fd/63";

/**
 * Decodes a word-like node; null, with the problem in `sink`, for an expansion not accepted or an unknown node. A `$( )` part makes it
 * `dynamic` (and `glob` unquoted: bash splits and expands the result).
 */
export function decodeWord(node: SyntaxNode, sink: WordSink): ShellWord | null {
  const word = decodeParts(node, sink);
  if (word === null || !mayMisreadBraces(word, quotesBraceSyntax(node))) return word;
  sink.problems.push(QUOTED_BRACES_PROBLEM);
  return null;
}

export const QUOTED_BRACES_PROBLEM = "a word with wildcards or braces and a quoted or escaped `{`, `}` or `,` (bash keeps those literal, the gate could not)";

/** True when the gate would expand braces in `word`'s value although some brace syntax in it was quoted (`quoted`). */
export function mayMisreadBraces(word: ShellWord, quoted: boolean): boolean {
  return quoted && word.glob && word.dynamic !== true;
}

function decodeParts(node: SyntaxNode, sink: WordSink): ShellWord | null {
  const type = node.type;
  if (type === "word" || type === "extglob_pattern") return decodeUnquoted(node.text, sink);
  if (type === "number") return /^[-+]?[0-9A-Za-z#_]+$/.test(node.text) ? { value: node.text, glob: false } : unknown(node, sink);
  if (type === "raw_string") return { value: node.text.slice(1, -1), glob: false };
  if (type === "string") return decodeDoubleQuoted(node, sink);
  if (type === "concatenation") return decodeConcatenation(node, sink);
  if (type === "command_substitution" || type === "process_substitution") return decodeSubstitution(node, sink, false);
  return flagExpansion(node, sink) ? null : unknown(node, sink);
}

/** Records the problem of an expansion node, substitutions included (their commands are walked); false when it is none. */
export function flagExpansion(node: SyntaxNode, sink: WordSink): boolean {
  if (node.type === "command_substitution" || node.type === "process_substitution") {
    sink.problems.push(node.type === "command_substitution" ? "command substitution $( ) or backticks" : "process substitution <( ) or >( )");
    sink.walkNested(node);
    return true;
  }
  const problem = EXPANSION_PROBLEMS[node.type];
  if (problem === undefined) return false;
  sink.problems.push(problem);
  return true;
}

/** `$( )` and backticks: the inner commands are walked, the value is unknown. `<( )` is a pipe's path; `>( )` writes. */
function decodeSubstitution(node: SyntaxNode, sink: WordSink, quoted: boolean): ShellWord | null {
  sink.walkNested(node);
  // Inside backticks bash ends at the first unescaped backtick (quotes do not hide it) and turns \` into a
  // nested substitution, where tree-sitter sees a quoted or escaped character: only plain bodies agree.
  if (node.firstChild?.type === "`" && /[\\`]/.test(node.text.slice(1, -1))) {
    sink.problems.push("a backtick substitution with a backslash or another backtick inside (write it with $( ))");
    return null;
  }
  if (node.type === "command_substitution") return { value: node.text, glob: !quoted, dynamic: true };
  if (node.firstChild?.type === "<(" && !quoted) return { value: PROCESS_SUBSTITUTION_PATH, glob: false };
  sink.problems.push(quoted ? "process substitution inside double quotes" : "process substitution >( ) (it writes)");
  return null;
}

/**
 * True when part of a word is a quoted or escaped `{`, `}` or `,`: expanding the unquoted value would read `.e{n,'}'}v` as `.en}v`
 * where bash gives `.env`, so such a word is refused when it may expand.
 */
export function quotesBraceSyntax(node: SyntaxNode): boolean {
  if (node.type === "word" || node.type === "extglob_pattern") return /\\[{},]/.test(node.text.replace(/\\\\/g, ""));
  // Conservative: a `{`, `}` or `,` anywhere inside the quotes (even inside a `$( )` there) counts.
  if (node.type === "raw_string" || node.type === "string") return /[{},]/.test(node.text);
  return node.type === "concatenation" && node.children.some((child) => child !== null && quotesBraceSyntax(child));
}

function unknown(node: SyntaxNode, sink: WordSink): null {
  sink.problems.push(node.isNamed ? `unsupported word syntax: ${node.type}` : `unexpected token ${JSON.stringify(node.text)}`);
  return null;
}

function decodeConcatenation(node: SyntaxNode, sink: WordSink): ShellWord | null {
  const word: ShellWord = { value: "", glob: false };
  for (const child of node.children) {
    if (child === null) continue;
    const part = decodeWord(child, sink);
    if (part === null) return null;
    appendWord(word, part);
  }
  return word;
}

/** Joins `part` onto `word` (touching pieces that bash reads as one word). */
export function appendWord(word: ShellWord, part: ShellWord): void {
  word.value += part.value;
  word.glob ||= part.glob;
  if (part.dynamic === true) word.dynamic = true;
}

/** Literal parts come from the raw text between the children (tree-sitter leaves blank-only content out); `$NAME` and kin are problems. */
function decodeDoubleQuoted(node: SyntaxNode, sink: WordSink): ShellWord | null {
  const raw = node.text;
  if (raw.length < 2 || !raw.startsWith('"') || !raw.endsWith('"')) return quotedProblem(sink);
  const word: ShellWord = { value: "", glob: false };
  let at = node.startIndex + 1;
  for (const child of node.namedChildren) {
    if (child === null || child.type === "string_content") continue;
    if (child.type !== "command_substitution") {
      if (!flagExpansion(child, sink)) unknown(child, sink);
      return null;
    }
    const text = unescapeDoubleQuoted(raw.slice(at - node.startIndex, child.startIndex - node.startIndex));
    if (text === null) return quotedProblem(sink);
    appendWord(word, { value: text, glob: false });
    const part = decodeSubstitution(child, sink, true);
    if (part === null) return null;
    appendWord(word, part);
    at = child.endIndex;
  }
  const tail = unescapeDoubleQuoted(raw.slice(at - node.startIndex, -1));
  if (tail === null) return quotedProblem(sink);
  appendWord(word, { value: tail, glob: false });
  return word;
}

function quotedProblem(sink: WordSink): null {
  sink.problems.push("a `$`, backtick or stray quote inside double quotes");
  return null;
}

/** Inside double quotes a backslash escapes only `$ \` " \\` and newline; a `$`, backtick or quote left unescaped is refused. */
function unescapeDoubleQuoted(text: string): string | null {
  if (/(^|[^\\])(\\\\)*[$`"]/.test(text)) return null;
  return text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === "\n" ? "" : c));
}

/** Unquoted text: a backslash makes the next character literal; unescaped wildcard and brace characters make the word expandable. */
function decodeUnquoted(text: string, sink: WordSink): ShellWord | null {
  const unescaped = text.replace(/\\[\s\S]?/g, "");
  const bad = /[$`\n]/.exec(unescaped)?.[0];
  if (bad !== undefined) {
    sink.problems.push(bad === "\n" ? "a newline inside a word" : "an unparsed `$` or backtick");
    return null;
  }
  return { value: text.replace(/\\([\s\S]?)/g, (_, c: string) => (c === "\n" ? "" : c)), glob: /[*?[{}]/.test(unescaped) };
}
