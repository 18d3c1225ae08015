// Shell command → simple commands via tree-sitter-bash: the reader every verdict rests on; anything not understood is a problem.
// Plain lines are read without loading the grammar, exactly as it reads them. One other reader exists where this one is not
// the safe choice: process-secrets.ts (the never-in-any-mode guard must see the words of lines this reader refuses).
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import type { Parser } from "web-tree-sitter";
import { PACKAGE_ROOT } from "../paths.js";
import { lexicalProblems, parseRedirect, REDIRECT_TYPES, testCommandWords } from "./shell-syntax.js";
import { QUOTED_BRACES_PROBLEM, appendWord, decodeWord, mayMisreadBraces, quotesBraceSyntax, type ShellWord, type SyntaxNode, type WordSink } from "./shell-words.js";

export type { ShellWord } from "./shell-words.js";

/** One redirection: `2>/dev/null` is `{ op: ">", fd: "2", target: "/dev/null" }`; no target for here-documents (op `<<`) and `>&-`. */
export interface ShellRedirect { op: string; fd: string | null; target: ShellWord | null }

/**
 * A simple command with its `NAME=value` words as written and every redirection that applies to it (enclosing groups' too);
 * `nested` inside a substitution (`$( )`, backticks, `<( )`), where it runs like the others.
 */
export interface SimpleCommand { argv: ShellWord[]; assignments: string[]; redirects: ShellRedirect[]; nested: boolean }

/** The parse of a whole command line. It is fully understood only when `problems` is empty. */
export interface ParsedShell { commands: SimpleCommand[]; problems: string[] }
const MAX_COMMAND_CHARS = 100_000;
let parser: Parser | undefined;
let loading: Promise<void> | undefined;
let baselineOnly = false;

/**
 * For the miniclaw command: V8 compiles the grammar at its baseline tier only (no second of background tiering), set as it loads (earlier,
 * Node's own modules would miss their code cache).
 */
export function keepShellParserAtBaseline(): void {
  baselineOnly = true;
}

/** Loads the bash grammar (WebAssembly) once per process; later calls share the promise. Rejects on failure; a later call retries. */
export function loadShellParser(): Promise<void> {
  loading ??= (async () => {
    if (baselineOnly) setFlagsFromString("--liftoff-only");
    // Imported here: a process whose commands are all plain never loads tree-sitter at all.
    const { Language, Parser } = await import("web-tree-sitter");
    await Parser.init();
    const language = await Language.load(await readFile(grammarFile()));
    parser = new Parser().setLanguage(language);
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** The bash grammar the build ships in the package (dist/pkg/grammar); from tree-sitter-bash itself before a build. */
function grammarFile(): string {
  const shipped = join(PACKAGE_ROOT, "dist", "pkg", "grammar", "tree-sitter-bash.wasm");
  return existsSync(shipped) ? shipped : createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
}

/** Parses after loading the grammar if needed. */
export async function parseShell(command: string): Promise<ParsedShell> {
  await loadShellParser();
  return parseShellSync(command) as ParsedShell;
}

/** True once the grammar is loaded: every command can then be parsed synchronously. */
export function isShellParserLoaded(): boolean {
  return parser !== undefined;
}

/** A plain command at once, anything else with the grammar; undefined for those while the grammar is not loaded. */
export function parseShellSync(command: string): ParsedShell | undefined {
  return parsePlainCommand(command) ?? parseWithGrammar(command);
}

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

/**
 * The parse of a plain line (`ls -la src`, `git log --oneline | head -5`), as `parseWithGrammar` gives it (a property test holds them
 * together), so the common command is judged without loading the 1.4 MB grammar; undefined for any other line.
 */
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

/** Parses with the grammar alone (what `parsePlainCommand` must agree with); undefined while it is not loaded. */
export function parseWithGrammar(command: string): ParsedShell | undefined {
  if (parser === undefined) return undefined;
  if (command.length > MAX_COMMAND_CHARS) return { commands: [], problems: [`command longer than ${MAX_COMMAND_CHARS} characters`] };
  const tree = parser.parse(command);
  if (tree === null) return { commands: [], problems: ["the shell parser gave no result"] };
  try {
    const walker = new Walker(command);
    walker.problems.push(...lexicalProblems(command, tree));
    if (tree.rootNode.hasError) walker.problems.push("the command does not parse as bash");
    walker.walkChildren(tree.rootNode, [], PROGRAM_TOKENS);
    if (walker.commands.length === 0 && walker.problems.length === 0) walker.problems.push("no command");
    return { commands: walker.commands, problems: walker.problems };
  } finally {
    tree.delete();
  }
}

const PROGRAM_TOKENS = new Set([";", "\n"]);
const STRUCTURE_TOKENS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["list", new Set(["&&", "||"])],
  ["pipeline", new Set(["|", "|&"])],
  ["subshell", new Set(["(", ")", ";", "\n"])],
  ["compound_statement", new Set(["{", "}", ";", "\n"])],
  ["negated_command", new Set(["!"])],
]);
const SUBSTITUTION_TOKENS = new Set(["$(", ")", "`", "<(", ">("]);

class Walker implements WordSink {
  readonly commands: SimpleCommand[] = [];
  readonly problems: string[] = [];
  private nestedDepth = 0;

  constructor(private readonly source: string) {}

  walkNested(node: SyntaxNode): void {
    this.nestedDepth++;
    this.walkChildren(node, [], SUBSTITUTION_TOKENS);
    this.nestedDepth--;
  }

  walkChildren(node: SyntaxNode, inherited: ShellRedirect[], tokens: ReadonlySet<string>): void {
    for (const child of node.children) {
      if (child === null) continue;
      if (child.isNamed) this.walkStatement(child, inherited);
      else if (child.type === "&") this.problems.push("background job (&)");
      else if (!tokens.has(child.type)) this.problems.push(`unexpected token ${JSON.stringify(child.type)}`);
    }
  }

  private walkStatement(node: SyntaxNode, inherited: ShellRedirect[]): void {
    const tokens = STRUCTURE_TOKENS.get(node.type);
    if (tokens !== undefined) return this.walkChildren(node, inherited, tokens);
    if (node.type === "command") return this.walkCommand(node, inherited);
    if (node.type === "test_command") return this.walkTest(node, inherited);
    if (node.type === "redirected_statement") return this.walkRedirected(node, inherited);
    if (node.type === "variable_assignment" || node.type === "variable_assignments") {
      this.checkAssignment(node);
      return this.push({ argv: [], assignments: [node.text], redirects: inherited });
    }
    if (node.type !== "comment") this.problems.push(node.isMissing || node.isError ? "the command does not parse as bash" : `unsupported shell syntax: ${node.type}`);
  }

  private walkCommand(node: SyntaxNode, inherited: ShellRedirect[]): void {
    const command: Omit<SimpleCommand, "nested"> = { argv: [], assignments: [], redirects: [...inherited] };
    let lastWordEnd = -1;
    let lastRedirectEnd = -1;
    // Per argv word: whether any of its pieces quotes brace syntax, judged once the pieces are joined.
    const quotedBraces: boolean[] = [];
    node.children.forEach((child, index) => {
      if (child === null) return;
      const field = node.fieldNameForChild(index);
      if (field === "name" || field === "argument") {
        if (child.startIndex === lastRedirectEnd) this.problems.push("a word run together with a redirection before it");
        const piece = field === "name" ? (child.firstChild ?? child) : child;
        const word = decodeWord(piece, this);
        const previous = command.argv[command.argv.length - 1];
        // Bash reads touching pieces (`"a"\;`) as one word; tree-sitter sometimes splits them.
        const quoted = quotesBraceSyntax(piece);
        if (word !== null && previous !== undefined && child.startIndex === lastWordEnd) {
          appendWord(previous, word);
          quotedBraces[quotedBraces.length - 1] ||= quoted;
        } else if (word !== null) {
          command.argv.push(word);
          quotedBraces.push(quoted);
        }
        lastWordEnd = child.endIndex;
      } else if (field === "redirect" || REDIRECT_TYPES.has(child.type)) {
        const redirect = parseRedirect(child, this.source, this);
        if (redirect !== null) command.redirects.push(redirect);
        lastRedirectEnd = child.endIndex;
      } else if (child.type === "variable_assignment") {
        this.checkAssignment(child);
        command.assignments.push(child.text);
      } else if (child.type !== "comment") {
        this.problems.push(`unsupported shell syntax in a command: ${child.type}`);
      }
    });
    if (command.argv.some((word, i) => mayMisreadBraces(word, quotedBraces[i] === true))) this.problems.push(QUOTED_BRACES_PROBLEM);
    this.push(command);
  }

  private walkTest(node: SyntaxNode, inherited: ShellRedirect[]): void {
    const argv = testCommandWords(node, this.source, this);
    if (argv !== null) this.push({ argv, assignments: [], redirects: [...inherited] });
  }

  private walkRedirected(node: SyntaxNode, inherited: ShellRedirect[]): void {
    const redirects = [...inherited];
    let body: SyntaxNode | null = null;
    node.children.forEach((child, index) => {
      if (child === null) return;
      if (node.fieldNameForChild(index) === "body") body = child;
      else {
        const redirect = parseRedirect(child, this.source, this);
        if (redirect !== null) redirects.push(redirect);
      }
    });
    if (body === null) this.push({ argv: [], assignments: [], redirects });
    else this.walkStatement(body, redirects);
  }

  private checkAssignment(node: SyntaxNode): void {
    for (const child of node.namedChildren) if (child !== null && child.type !== "variable_name") decodeWord(child, this);
  }

  private push(command: Omit<SimpleCommand, "nested">): void {
    this.commands.push({ ...command, nested: this.nestedDepth > 0 });
  }
}
