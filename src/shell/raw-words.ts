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

  private append(text: string): void {
    this.word = (this.word ?? "") + text;
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
    this.append(UNKNOWN);
  }

  private skipComment(): void {
    while (this.i < this.text.length && this.text[this.i] !== "\n") this.i++;
  }

  private lexWordPart(): void {
    const c = this.text[this.i] as string;
    if (c === "\\") {
      const next = this.text[this.i + 1];
      if (next !== undefined && next !== "\n") this.append(next);
      this.i += 2;
    } else if (c === "'") {
      const end = this.text.indexOf("'", this.i + 1);
      const stop = end === -1 ? this.text.length : end;
      this.append(this.text.slice(this.i + 1, stop));
      this.i = stop + 1;
    } else if (c === '"') {
      this.i++;
      this.lexDoubleQuoted();
    } else if (c === "`") {
      this.i++;
      this.nested("`");
    } else if (c === "$") this.lexDollar();
    else {
      this.append(c);
      this.i++;
    }
  }

  private lexDoubleQuoted(): void {
    this.append("");
    while (this.i < this.text.length && this.text[this.i] !== '"') {
      const c = this.text[this.i] as string;
      if (c === "\\" && '$`"\\\n'.includes(this.text[this.i + 1] ?? "")) {
        if (this.text[this.i + 1] !== "\n") this.append(this.text[this.i + 1] as string);
        this.i += 2;
      } else if (c === "`") {
        this.i++;
        this.nested("`");
      } else if (c === "$") this.lexDollar();
      else {
        this.append(c);
        this.i++;
      }
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
      this.i = end === -1 ? this.text.length : end + 1;
      return this.append(UNKNOWN);
    }
    if (next === "'") return this.lexAnsiC();
    if (next === '"') {
      this.i += 2;
      return this.lexDoubleQuoted();
    }
    const name = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(this.text.slice(this.i + 1));
    if (name === null) {
      this.append("$");
      this.i++;
      return;
    }
    this.i += 1 + name[0].length;
    this.append(UNKNOWN);
  }

  /** `$'...'`: backslash escapes decoded (`\x2f` is `/`), as bash does before the program sees the word. */
  private lexAnsiC(): void {
    let i = this.i + 2;
    let out = "";
    while (i < this.text.length && this.text[i] !== "'") {
      const c = this.text[i] as string;
      if (c !== "\\") {
        out += c;
        i++;
        continue;
      }
      const rest = this.text.slice(i + 1);
      const code = /^(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|([0-7]{1,3}))/.exec(rest);
      if (code !== null) {
        const value = code[1] ?? code[2] ?? code[3];
        out += String.fromCodePoint(value !== undefined ? parseInt(value, 16) : parseInt(code[4] as string, 8));
        i += 1 + code[0].length;
      } else {
        const e = rest[0] ?? "";
        out += ANSI_ESCAPES[e] ?? e;
        i += 2;
      }
    }
    this.i = i + 1;
    this.append(out);
  }
}
