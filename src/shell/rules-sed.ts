// sed scripts: a reader that follows GNU sed's own compiler (brackets, delimiters, s flags, a/i/c text) and accepts only commands that print or transform.
import type { ParsedArgs } from "./arg-spec.js";

/** Commands that only print or transform the stream and take nothing after them. */
const SIMPLE = new Set(["=", "d", "F", "g", "G", "h", "H", "n", "N", "p", "P", "x", "z"]);
/** Commands refused, with why: files, programs, and jumps (which can loop forever). */
const REFUSED: Readonly<Record<string, string>> = {
  e: "runs a command", w: "writes a file", W: "writes a file", r: "reads a file", R: "reads a file", b: "jumps (and can loop forever)",
  t: "jumps (and can loop forever)", T: "jumps (and can loop forever)", ":": "is a label for jumps", D: "can loop forever", v: "is not needed",
  L: "is not on the list",
};
const BLANK = " \t";
const SPACE = " \t\n\v\f\r";
const EOF = undefined;
const isDigit = (ch: string | undefined): boolean => ch !== EOF && ch >= "0" && ch <= "9";

/** Why the sed scripts (the `-e` values joined by newlines, as sed does, or the first operand) are not read-only; it also runs `--sandbox`. */
export function checkSedScripts(args: ParsedArgs): string | null {
  const fromFlags = args.flags.filter((f) => f.name === "-e" || f.name === "--expression").map((f) => f.value);
  const scripts = fromFlags.length > 0 ? fromFlags : [args.positionals[0]];
  const texts: string[] = [];
  for (const script of scripts) {
    if (script === undefined || script === null) return "sed without a script";
    if (script.glob || script.dynamic === true) return "sed: the script is an unquoted wildcard or computed";
    texts.push(script.value);
  }
  const reason = checkSedScript(texts.join("\n"));
  return reason === null ? null : `sed: ${reason}`;
}

/** Why this one sed script is not in the read-only subset, or null. */
export function checkSedScript(script: string): string | null {
  if (/[^\x00-\x7f]/.test(script)) return "a script with non-ASCII characters (sed splits them by locale, which the gate cannot know)";
  try {
    new SedReader(script).program();
    return null;
  } catch (error) {
    if (error instanceof SedRefusal) return error.message;
    throw error;
  }
}

class SedRefusal extends Error {}

/** One pass over the script, in the order and with the rules of GNU sed's compile.c. */
class SedReader {
  private i = 0;

  constructor(private readonly text: string) {}

  program(): void {
    for (;;) {
      let ch = this.next();
      while (ch !== EOF && (ch === ";" || SPACE.includes(ch))) ch = this.next();
      if (ch === EOF) return;
      const addressed = this.address(ch);
      if (addressed) {
        ch = this.nonblank();
        if (ch === ",") {
          if (!this.address(this.nonblank())) this.refuse("an address after `,` that it cannot read");
          ch = this.nonblank();
        }
      }
      if (ch === "!") ch = this.nonblank();
      this.command(ch, addressed);
    }
  }

  private command(ch: string | undefined, addressed: boolean): void {
    if (ch === EOF) this.refuse("an address without a command");
    if (ch === "#") return addressed ? this.refuse("a comment after an address") : this.skipLine();
    if (Object.hasOwn(REFUSED, ch)) this.refuse(`the command \`${ch}\` ${REFUSED[ch]}`);
    if (ch === "{") return;
    if (ch === "}" || SIMPLE.has(ch)) return this.endOfCommand(ch);
    if (ch === "a" || ch === "i" || ch === "c") return this.appendText();
    if (ch === "q" || ch === "Q" || ch === "l") {
      this.integerAfterBlanks();
      return this.endOfCommand(ch);
    }
    if (ch === "s") return this.substitute();
    if (ch === "y") {
      const slash = this.delimiter("y");
      this.delimited(slash, false, "y");
      this.delimited(slash, false, "y");
      return this.endOfCommand("y");
    }
    this.refuse(`the command \`${ch}\` is not on the read-only list`);
  }

  private substitute(): void {
    const slash = this.delimiter("s");
    this.delimited(slash, true, "s");
    this.delimited(slash, false, "s");
    for (;;) {
      const ch = this.nonblank();
      if (ch === EOF || ch === "\n" || ch === ";") return;
      if (ch === "}" || ch === "#") return this.back(ch);
      if (ch === "e") this.refuse("the s flag `e` runs the result as a command");
      if (ch === "w") this.refuse("the s flag `w` writes a file");
      if (isDigit(ch)) this.skipDigits();
      else if (!"gpiImM".includes(ch)) this.refuse(`the s flag \`${ch}\` is not on the read-only list`);
    }
  }

  /** `a`, `i`, `c`: text to the end of the line, where a backslash escapes the next character (a newline too). */
  private appendText(): void {
    let ch = this.nonblank();
    if (ch === EOF) this.refuse("an a, i or c command without text");
    if (ch === "\\") this.next();
    else this.back(ch);
    for (ch = this.next(); ch !== EOF && ch !== "\n"; ch = this.next()) {
      if (ch === "\\") this.next();
    }
  }

  /** compile_address, given the character already read: `/re/` or `\cREc` with I/M flags, `N`, `N~S`, `+N`, `~N`, `$`; false when `ch` starts none. */
  private address(ch: string | undefined): boolean {
    if (ch === "/" || ch === "\\") {
      const slash = ch === "\\" ? this.next() : "/";
      if (slash === EOF || slash === "\n") this.refuse("an address delimiter it cannot read");
      this.delimited(slash, true, "address");
      let flag = this.nonblank();
      while (flag === "I" || flag === "M") flag = this.nonblank();
      this.back(flag);
      return true;
    }
    if (isDigit(ch)) {
      this.skipDigits();
      const tilde = this.nonblank();
      if (tilde === "~") this.integerAfterBlanks();
      else this.back(tilde);
      return true;
    }
    if (ch === "+" || ch === "~") {
      this.integerAfterBlanks();
      return true;
    }
    return ch === "$";
  }

  /** match_slash: up to the unescaped delimiter; in a regex a bracket expression hides it (`s/[/]/x/`). */
  private delimited(slash: string, regex: boolean, what: string): void {
    for (;;) {
      let ch = this.next();
      if (ch === EOF || ch === "\n") this.refuse(`an unterminated ${what}`);
      if (ch === slash) return;
      if (ch === "\\") {
        if (this.next() === EOF) this.refuse(`an unterminated ${what}`);
      } else if (ch === "[" && regex) {
        ch = this.bracket();
        if (ch !== "]") this.refuse(`an unterminated bracket expression in the ${what}`);
      }
    }
  }

  /** snarf_char_class: a bracket expression, where `]` first (after `^`) is literal and `[:...:]`, `[.….]`, `[=…=]` nest. */
  private bracket(): string | undefined {
    let ch = this.next();
    if (ch === "^") ch = this.next();
    if (ch === "]") ch = this.next();
    let state = 0;
    let delim = "";
    for (; ; ch = this.next()) {
      if (ch === EOF || ch === "\n") return ch;
      if (ch === "." || ch === ":" || ch === "=") {
        if (state === 1) {
          delim = ch;
          state = 2;
          continue;
        }
        if (state === 2 && ch === delim) {
          state = 3;
          continue;
        }
      } else if (ch === "[") {
        if (state === 0) state = 1;
        continue;
      } else if (ch === "]") {
        if (state === 0 || state === 1) return ch;
        if (state === 3) state = 0;
      }
      state &= ~1;
    }
  }

  private delimiter(command: string): string {
    const slash = this.next();
    if (slash === EOF || slash === "\n" || slash === "\\") this.refuse(`a ${command} command without a usable delimiter`);
    return slash;
  }

  /** read_end_of_cmd: blanks, then the end of the line, `;`, or a `}` or `#` that starts the next command. */
  private endOfCommand(command: string): void {
    const ch = this.nonblank();
    if (ch === "}" || ch === "#") this.back(ch);
    else if (ch !== EOF && ch !== "\n" && ch !== ";") this.refuse(`unexpected text after \`${command}\``);
  }

  private integerAfterBlanks(): void {
    this.back(this.nonblank());
    this.skipDigits();
  }

  private skipDigits(): void {
    while (isDigit(this.text[this.i])) this.i++;
  }

  private skipLine(): void {
    const end = this.text.indexOf("\n", this.i);
    this.i = end === -1 ? this.text.length : end + 1;
  }

  private next(): string | undefined {
    return this.i < this.text.length ? this.text[this.i++] : EOF;
  }

  private back(ch: string | undefined): void {
    if (ch !== EOF) this.i--;
  }

  private nonblank(): string | undefined {
    let ch = this.next();
    while (ch !== EOF && BLANK.includes(ch)) ch = this.next();
    return ch;
  }

  private refuse(reason: string): never {
    throw new SedRefusal(reason);
  }
}
