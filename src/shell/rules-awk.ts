// awk programs that only print: safe only where `awk --sandbox` exists (it then runs so), with the program read as a second line.
import type { ArgSpec, ParsedArgs } from "./arg-spec.js";
import type { ProgramRule } from "./program-rules.js";
import { sandboxSupport } from "./child-sandbox.js";

/** gawk options that change only how input is read or numbers printed; files, includes, extensions, profiles and dumps are out. */
const AWK: ArgSpec = {
  short: "bcCnNOPrstSVMgh",
  shortValue: "Fv",
  shortOptional: "L",
  long: [
    "field-separator=", "assign=", "characters-as-bytes", "traditional", "copyright", "gen-pot", "help", "lint[=]", "bignum", "non-decimal-data",
    "use-lc-numeric", "optimize", "posix", "re-interval", "no-optimize", "sandbox", "lint-old", "version", "csv",
  ],
  deny: {
    "-f": "reads its program from a file", "--file": "reads its program from a file", "-e": "takes program text the gate does not read here", "--source": "takes program text the gate does not read here",
    "-E": "reads its program from a file", "--exec": "reads its program from a file", "-i": "includes a source file", "--include": "includes a source file",
    "-l": "loads a compiled extension", "--load": "loads a compiled extension", "-d": "writes a variables file", "--dump-variables": "writes a variables file",
    "-D": "runs the debugger", "--debug": "runs the debugger", "-o": "writes a pretty-printed file", "--pretty-print": "writes a pretty-printed file",
    "-p": "writes a profile", "--profile": "writes a profile", "-W": "takes options the gate does not read",
  },
};

/** Names that reach commands, files by name, the environment (also through SYMTAB) or the file list; matched anywhere (strings too). */
const REFUSED_NAMES = /\b(system|getline|close|ENVIRON|PROCINFO|SYMTAB|FUNCTAB|ARGV|ARGC)\b/;
/** Keywords after which gawk's grammar expects an expression, so a `/` there starts a regular expression. */
const EXPECTS_OPERAND = new Set(["print", "printf", "return", "case", "in", "do", "else", "if", "while", "for", "delete", "exit", "getline"]);
const CONTROL = new Set(["if", "while", "for"]);

/** Why this awk program is not read-only: a refused name, `@` (includes, extensions, indirect calls), a pipe, or a redirection in print. */
export function checkAwkProgram(program: string): string | null {
  const name = REFUSED_NAMES.exec(program);
  if (name !== null) return `awk: the program uses \`${name[0]}\`, which runs commands, opens files by name or reads the environment`;
  if (program.includes("@")) return "awk: `@` (includes, extensions, indirect calls) is not on the read-only list";
  return new AwkScanner(program).scan();
}

/** A token scan knowing strings, regular expressions (where gawk expects an operand), comments and parentheses. */
class AwkScanner {
  private i = 0;
  private operandBefore = false;
  private depth = 0;
  /** Parenthesis depth of the print statement being read, if any. */
  private printDepth: number | null = null;
  /** Per open parenthesis: whether it holds the condition of if/while/for (a statement, not an operator, follows). */
  private readonly parens: boolean[] = [];
  private lastWord = "";

  constructor(private readonly text: string) {}

  scan(): string | null {
    for (; this.i < this.text.length; this.i++) {
      const why = this.step(this.text[this.i] as string);
      if (why !== null) return `awk: ${why}`;
    }
    return null;
  }

  private step(c: string): string | null {
    if (c === " " || c === "\t") return null;
    if (c === "\\" && this.text[this.i + 1] === "\n") return this.skip(1);
    if (c === "#") return this.skipComment();
    if (c === "\n" || c === ";" || c === "{" || c === "}") return this.endStatement(c);
    if (c === '"') return this.skipQuoted('"', "string");
    if (c === "/" && !this.operandBefore) return this.skipRegex();
    if (/[A-Za-z_]/.test(c)) return this.word();
    if (/[0-9.]/.test(c)) return this.number();
    if (c === "|") return this.text[this.i + 1] === "|" ? this.after("operator", 1) : "a pipe `|` runs a command";
    if (c === ">") return this.printDepth !== null && this.depth <= this.printDepth ? "a redirection `>` in print writes a file" : this.after("operator", /[>=]/.test(this.text[this.i + 1] ?? "") ? 1 : 0);
    if (c === "(") return this.open();
    if (c === ")") return this.close();
    if (c === "]") return this.after("operand");
    if ((c === "+" || c === "-") && this.text[this.i + 1] === c) return this.after("operand", 1);
    return this.after("operator");
  }

  private word(): null {
    const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.text.slice(this.i)) as RegExpExecArray;
    this.lastWord = match[0];
    this.i += match[0].length - 1;
    if ((this.lastWord === "print" || this.lastWord === "printf") && this.printDepth === null) this.printDepth = this.depth;
    this.operandBefore = !EXPECTS_OPERAND.has(this.lastWord);
    return null;
  }

  private number(): null {
    this.i += (/^[0-9.]+([eE][-+]?[0-9]+)?/.exec(this.text.slice(this.i)) as RegExpExecArray)[0].length - 1;
    return this.after("operand");
  }

  private open(): null {
    this.parens.push(!this.operandBefore && CONTROL.has(this.lastWord));
    this.depth++;
    return this.after("operator");
  }

  private close(): string | null {
    const control = this.parens.pop();
    if (control === undefined) return "an unbalanced `)`";
    this.depth--;
    // After `if (...)` a statement follows, where `/` starts a regular expression.
    return control ? this.after("operator") : this.after("operand");
  }

  private endStatement(c: string): null {
    if (c !== "\n" || this.printDepth === null || this.depth <= this.printDepth) this.printDepth = null;
    return this.after("operator");
  }

  private skipQuoted(end: string, what: string): string | null {
    for (this.i++; this.i < this.text.length; this.i++) {
      const c = this.text[this.i];
      if (c === "\\") this.i++;
      else if (c === end) return this.after("operand");
      else if (c === "\n") break;
    }
    return `an unterminated ${what}`;
  }

  /** gawk's regexp reader: a `/` inside a bracket expression (`[/]`, `[[:alpha:]/]`) does not end it. */
  private skipRegex(): string | null {
    let brackets = 0;
    let open = -1;
    for (this.i++; this.i < this.text.length; this.i++) {
      const c = this.text[this.i];
      if (c === "\\") this.i++;
      else if (c === "\n") break;
      else if (c === "[") {
        if (this.text[this.i + 1] === ":" || brackets === 0) brackets++;
        if (brackets === 1) open = this.i;
      } else if (c === "]") {
        if (brackets > 0 && this.i > open + 1 && (this.text[open + 1] !== "^" || this.i > open + 2)) brackets--;
      } else if (c === "/" && brackets === 0) return this.after("operand");
    }
    return "an unterminated regular expression";
  }

  private skipComment(): null {
    while (this.i + 1 < this.text.length && this.text[this.i + 1] !== "\n") this.i++;
    return null;
  }

  private skip(extra: number): null {
    this.i += extra;
    return null;
  }

  /** Moves past `extra` more characters of a token that was an operand or an operator (after which `/` starts a regex). */
  private after(token: "operand" | "operator", extra = 0): null {
    this.i += extra;
    this.operandBefore = token === "operand";
    this.lastWord = "";
    return null;
  }
}

/** gawk reads `/inet/tcp/...` (and /inet4, /inet6) given as an input file as a network connection. */
const NETWORK_FILE = /^\/+inet[46]?\//;

function checkAwk(args: ParsedArgs): string | null {
  if (!sandboxSupport().awk) return "awk: this awk has no --sandbox mode, so a program could run commands or write files";
  const [program, ...operands] = args.positionals;
  const query = args.flags.some((f) => ["--version", "-V", "--help", "-h", "--copyright", "-C"].includes(f.name));
  if (program === undefined) return query ? null : "awk without a program";
  if (program.glob || program.dynamic === true) return "awk: the program is an unquoted wildcard or computed";
  const network = operands.find((w) => NETWORK_FILE.test(w.value));
  if (network !== undefined) return `awk: \`${network.value}\` is a network connection to gawk`;
  return checkAwkProgram(program.value);
}

/** `awk` and `gawk` judged safe run as `awk --sandbox` (no system(), redirections, getline from files, extensions). */
export const AWK_RULES: ReadonlyArray<readonly [string, ProgramRule]> = [
  ["awk", { spec: AWK, check: checkAwk, readsContent: true }],
  ["gawk", { spec: AWK, check: checkAwk, readsContent: true }],
];
