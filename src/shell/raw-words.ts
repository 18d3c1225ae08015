// A forgiving bash lexer for the raw-word guard (process-secrets.ts): every simple command of a line, substitutions included,
// as quote-removed words. The grammar cannot serve there: the guard holds in bypass mode, which runs lines the grammar
// refuses, so this reader never fails and errs towards seeing more words.

/** What an expansion the lexer cannot know (`$VAR`, `$(...)`, `${...}`) becomes: a wildcard, so it can stand for anything. */
const UNKNOWN = "*";
/** Where a simple command ends. `{ }` are words here: they group commands only when they stand alone, and `{a,b}` is a word. */
const OPERATORS = new Set([";", "|", "&", "(", ")", "\n"]);
const ANSI_ESCAPES: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v" };

/** The simple commands of a line as bash splits them: unknown expansions become `*`, substitutions are commands of their own, `$'\x2f'` is decoded. */
export function rawCommands(command: string): string[][] {
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
    else if (quoted || (c !== "\\" && c !== "'" && c !== '"')) this.take(c, 1);
    else if (c === "\\") this.take(next === "\n" ? "" : next, 2);
    else if (c === '"') {
      this.word ??= "";
      this.i++;
      this.lexDoubleQuoted();
    } else {
      const end = this.text.indexOf("'", this.i + 1);
      const stop = end === -1 ? this.text.length : end;
      this.word ??= "";
      this.take(this.text.slice(this.i + 1, stop), stop + 1 - this.i);
    }
  }

  private lexDoubleQuoted(): void {
    while (this.i < this.text.length && this.text[this.i] !== '"') {
      const next = this.text[this.i + 1] ?? "";
      if (this.text[this.i] === "\\" && '$`"\\\n'.includes(next) && next !== "") this.take(next === "\n" ? "" : next, 2);
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
    this.take(body.replace(escape, decode), 3 + body.length);
  }
}
