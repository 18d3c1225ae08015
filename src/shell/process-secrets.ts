// Reads that expose another process's environment (and so the API key): refused in every mode, bypass included. The words are
// read by a forgiving lexer of its own: the guard holds in bypass mode, which runs lines the grammar refuses, so this reader
// never fails and errs towards seeing more words.
import { expandBraces } from "./brace-expand.js";
import { resolveWord, wordPieces, type Base, type PathContext } from "./word-reads.js";
import { DECOMPRESSORS } from "./rules-archive.js";
import { isProcessSecretPath, normalizeSlashes as normalize } from "../gate/secret-paths.js";

const RECURSIVE_READERS = new Set(["grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "git", ...DECOMPRESSORS]);
/** Folders a line may `cd` into before the guard stops following and assumes it may be anywhere. */
const MAX_BASES = 16;

/**
 * Why a command may not run in any mode: the environment (API key included) shows through `/proc/<pid>/environ` and `ps e` in forms no
 * redaction catches. Raw words resolved as bash would, from every `cd`: a path into /proc, `/pro*`, a recursive search from `/`.
 */
export function processSecretsReason(command: string, context: PathContext = {}): string | null {
  const commands = rawCommands(command);
  const bases = cdBases(commands, context);
  const loose = command.split(/[\s;|&<>()`'"=]+/).filter(Boolean);
  for (const word of [...commands.flat(), ...loose]) {
    const why = wordReason(word, bases, context.home);
    if (why !== null) return why;
  }
  for (const words of commands) {
    const why = recursiveFromRootReason(words, bases, context.home);
    if (why !== null) return why;
  }
  // The check as it was before paths were resolved (a reader first on the line, `/` anywhere): nothing it refused is let through.
  if (RECURSIVE_READERS.has(loose[0] ?? "") && loose.slice(1).some((w) => normalize(w) === "/")) return "a recursive search from / reads /proc, where process environments live";
  if (/(^|[\s;|&(`])ps\s+(?:[^\s-]*e|[^|;&]*\s[^\s-]*e)/.test(command)) return "`ps e` prints the environment of processes";
  return null;
}

function wordReason(word: string, bases: readonly Base[], home: string | undefined): string | null {
  for (const path of wordPaths(word, bases, home)) {
    if (isProcessSecretPath(path)) return "it reads /proc, where process environments (and the API key) live";
    if (/^\/[^/]*[*?[]/.test(path)) return "a wildcard at the top of the file tree can reach /proc";
  }
  return null;
}

function recursiveFromRootReason(words: readonly string[], bases: readonly Base[], home: string | undefined): string | null {
  const reader = words.findIndex((w) => RECURSIVE_READERS.has(w.slice(w.lastIndexOf("/") + 1)));
  if (reader === -1) return null;
  const fromRoot = words.slice(reader + 1).some((w) => wordPaths(w, bases, home).includes("/"));
  return fromRoot ? "a recursive search from / reads /proc, where process environments live" : null;
}

/** Every path a word may name: each piece after `=` or `:`, each brace alternative, from each base. */
function wordPaths(word: string, bases: readonly Base[], home: string | undefined): string[] {
  // The word as written too, `..` kept: `/proc/../etc` was refused before paths were resolved, and still is.
  const paths: string[] = word.startsWith("/") ? [normalize(word)] : [];
  for (const piece of wordPieces(word)) {
    // Too many alternatives to list: each brace group may stand for anything, like a wildcard.
    const expanded = expandBraces(piece) ?? [piece.replace(/\{[^{}]*\}?/g, "*")];
    for (const one of expanded) paths.push(...resolveWord(one, bases, home));
  }
  return paths;
}

/** The folders commands of the line may run in: the working folder and every `cd`/`pushd` target, in order. */
function cdBases(commands: readonly string[][], context: PathContext): Base[] {
  const bases = new Set<Base>([context.cwd ?? ""]);
  for (const words of commands) {
    words.forEach((word, index) => {
      if (word !== "cd" && word !== "pushd") return;
      const target = words.slice(index + 1).find((w) => w === "-" || !w.startsWith("-")) ?? "~";
      if (bases.size >= MAX_BASES || target === "-" || /[*?[]/.test(target)) bases.add("/");
      if (bases.size >= MAX_BASES || target === "-") return;
      for (const path of wordPaths(target, [...bases], context.home)) bases.add(path);
    });
  }
  return [...bases];
}

/** What an expansion the lexer cannot know (`$VAR`, `$(...)`, `${...}`) becomes: a wildcard, so it can stand for anything. */
const UNKNOWN = "*";
/** What a quoted or escaped `{`, `}` or `,` becomes: a character brace expansion passes over, as bash does (`/{proc,"}"}` is `/proc` and `/}`). */
const BRACE_LITERAL = "\0";
/** Where a simple command ends. `{ }` are words here: they group commands only when they stand alone, and `{a,b}` is a word. */
const OPERATORS = new Set([";", "|", "&", "(", ")", "\n"]);
const ANSI_ESCAPES: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v" };

/** The simple commands of a line as bash splits them: unknown expansions become `*`, substitutions are commands of their own, `$'\x2f'` is decoded. */
function rawCommands(command: string): string[][] {
  const lexer = new RawLexer(command);
  lexer.lexList(null);
  lexer.endCommand();
  return lexer.commands.filter((c) => c.length > 0);
}

class RawLexer {
  readonly commands: string[][] = [];
  private words: string[] = [];
  private word: string | null = null;
  i = 0;

  constructor(private readonly text: string) {}

  /** Lexes until `stop` (a closing `)` or backtick) or the end; returns after consuming `stop`. */
  lexList(stop: string | null): void {
    while (this.i < this.text.length) {
      const c = this.text[this.i] as string;
      if (c === stop) {
        this.i++;
        return;
      }
      if (c === " " || c === "\t") this.endWord();
      else if (c === "#" && this.word === null) this.skipComment();
      else if ((c === "<" || c === ">") && this.text[this.i + 1] === "(") {
        this.i += 2;
        this.nested(")");
        continue;
      } else if (c === "<" || c === ">") this.endWord();
      else if (OPERATORS.has(c)) this.endCommand();
      else {
        this.lexWordPart();
        continue;
      }
      this.i++;
    }
  }

  endCommand(): void {
    this.endWord();
    if (this.words.length > 0) this.commands.push(this.words);
    this.words = [];
  }

  private endWord(): void {
    if (this.word !== null) this.words.push(this.word);
    this.word = null;
  }

  /** Appends `text` (nothing when empty: no word starts) and moves past `width` characters. */
  private take(text: string, width: number): void {
    if (text !== "") this.word = (this.word ?? "") + text;
    this.i += width;
  }

  /** `take` for quoted or escaped text: its brace characters are literal. */
  private takeQuoted(text: string, width: number): void {
    this.take(text.replace(/[{},]/g, BRACE_LITERAL), width);
  }

  /** Lexes a nested command list as its own commands, then resumes the current word. */
  private nested(stop: string): void {
    const saved = { words: this.words, word: this.word };
    this.words = [];
    this.word = null;
    this.lexList(stop);
    this.endCommand();
    this.words = saved.words;
    this.word = saved.word;
    this.take(UNKNOWN, 0);
  }

  private skipComment(): void {
    while (this.i < this.text.length && this.text[this.i] !== "\n") this.i++;
  }

  /** One piece of a word; inside double quotes (`quoted`) only substitutions and expansions are special. */
  private lexWordPart(quoted = false): void {
    const c = this.text[this.i] as string;
    const next = this.text[this.i + 1] ?? "";
    if (c === "`") {
      this.i++;
      this.nested("`");
    } else if (c === "$") this.lexDollar();
    else if (quoted) this.takeQuoted(c, 1);
    else if (c !== "\\" && c !== "'" && c !== '"') this.take(c, 1);
    else if (c === "\\") this.takeQuoted(next === "\n" ? "" : next, 2);
    else if (c === '"') {
      this.word ??= "";
      this.i++;
      this.lexDoubleQuoted();
    } else {
      const end = this.text.indexOf("'", this.i + 1);
      const stop = end === -1 ? this.text.length : end;
      this.word ??= "";
      this.takeQuoted(this.text.slice(this.i + 1, stop), stop + 1 - this.i);
    }
  }

  private lexDoubleQuoted(): void {
    while (this.i < this.text.length && this.text[this.i] !== '"') {
      const next = this.text[this.i + 1] ?? "";
      if (this.text[this.i] === "\\" && '$`"\\\n'.includes(next) && next !== "") this.takeQuoted(next === "\n" ? "" : next, 2);
      else this.lexWordPart(true);
    }
    this.i++;
  }

  private lexDollar(): void {
    const next = this.text[this.i + 1];
    if (next === "(") {
      this.i += 2;
      return this.nested(")");
    }
    if (next === "{") {
      const end = this.text.indexOf("}", this.i);
      return this.take(UNKNOWN, (end === -1 ? this.text.length : end + 1) - this.i);
    }
    if (next === "'") return this.lexAnsiC();
    if (next === '"') {
      this.word ??= "";
      this.i += 2;
      return this.lexDoubleQuoted();
    }
    const name = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(this.text.slice(this.i + 1));
    return name === null ? this.take("$", 1) : this.take(UNKNOWN, 1 + name[0].length);
  }

  /** `$'...'`: backslash escapes decoded (`\x2f` is `/`), as bash does before the program sees the word. */
  private lexAnsiC(): void {
    const body = /^(?:\\[\s\S]?|[^'\\])*/.exec(this.text.slice(this.i + 2))?.[0] ?? "";
    const escape = /\\(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|([0-7]{1,3})|([\s\S]?))/g;
    const decode = (_: string, x?: string, u?: string, U?: string, octal?: string, other = ""): string => {
      const hex = x ?? u ?? U;
      if (hex !== undefined || octal !== undefined) return String.fromCodePoint(hex !== undefined ? parseInt(hex, 16) : parseInt(octal as string, 8));
      return ANSI_ESCAPES[other] ?? other;
    };
    this.word ??= "";
    this.takeQuoted(body.replace(escape, decode), 3 + body.length);
  }
}
