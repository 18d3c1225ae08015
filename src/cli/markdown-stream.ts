// The model's reply rendered as Markdown for the terminal while it streams: each block is printed once, when it is complete.
import { styleText } from "node:util";
import { Marked, type Tokens } from "marked";
import { markedTerminal } from "marked-terminal";
import { escapeDecodedCharacters, visibleText } from "./visible-text.js";

/** Colors and bold (off: the Markdown marks dropped, nothing styled); the columns to wrap to, or how to read them (a terminal's, read for each block: a resized window rewraps what follows). */
type MarkdownOptions = { color: boolean; width: number | (() => number) };

/** Text streamed in, rendered blocks written out; `end` renders what is held back (the open line, an unclosed fence or list), `idle` says nothing is. */
export type MarkdownStream = { push(text: string): void; end(): void; idle(): boolean };

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^\s*([-*+]|\d{1,9}[.)])\s+/;
const TABLE_ROW = /^\s*\|/;
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]]+\]:\s*\S/;

/** Renders a reply as it streams, never reprinting: a text line once complete, a code block when its fence closes, a list or table when a line leaves it; escaped before and after Marked. */
export function createMarkdownStream(write: (text: string) => void, opts: MarkdownOptions): MarkdownStream {
  const markedNow = markedAtWidth(opts);
  let open = "";
  let block: string[] = [];
  let kind: "fence" | "list" | "table" | undefined;
  let fence = "";
  let blankInList = 0;
  const render = (lines: string[]): void => {
    const source = visibleText(lines.join("\n"), { keepLineBreaks: true });
    const rendered = escapeDecodedCharacters((markedNow().parse(source) as string).replace(/\s+$/, ""));
    if (rendered) write(`${rendered}\n`);
  };
  const flush = (): void => {
    if (block.length > 0) render(block);
    for (; blankInList > 0; blankInList--) write("\n");
    block = [];
    kind = undefined;
  };
  const addLine = (line: string): void => {
    if (kind === "fence") {
      block.push(line);
      // CommonMark: the closing fence is indented at most 3 spaces, of the opener's character, at least as long.
      const closer = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line)?.[1];
      if (closer !== undefined && closer[0] === fence[0] && closer.length >= fence.length) flush();
      return;
    }
    const blank = line.trim() === "";
    if (kind === "list" && (blank || LIST_ITEM.test(line) || /^\s+\S/.test(line))) {
      if (blank) blankInList++;
      else (block.push(...Array<string>(blankInList).fill("")), (blankInList = 0), block.push(line));
      return;
    }
    if (kind === "table" && TABLE_ROW.test(line)) return void block.push(line);
    flush();
    const opener = FENCE.exec(line);
    if (opener) [kind, fence, block] = ["fence", opener[1]!, [line]];
    else if (LIST_ITEM.test(line)) [kind, block] = ["list", [line]];
    else if (TABLE_ROW.test(line)) [kind, block] = ["table", [line]];
    else if (blank) write("\n");
    // A reference definition renders as nothing when its line is rendered alone: shown as written, its URL stays visible.
    else if (REFERENCE_DEFINITION.test(line)) write(`${visibleText(line, { keepLineBreaks: true })}\n`);
    else render([line]);
  };
  return {
    push(text) {
      open += text;
      for (let nl = open.indexOf("\n"); nl >= 0; nl = open.indexOf("\n")) {
        addLine(open.slice(0, nl));
        open = open.slice(nl + 1);
      }
    },
    end() {
      if (open) addLine(open);
      open = "";
      flush();
    },
    idle: () => open === "" && block.length === 0,
  };
}

/** The renderer for the width now: made again when the terminal's width changed since the last block. */
function markedAtWidth(opts: MarkdownOptions): () => Marked {
  const width = typeof opts.width === "number" ? () => opts.width as number : opts.width;
  let madeFor = width();
  let marked = createMarked(opts.color, madeFor);
  return () => {
    if (width() !== madeFor) marked = createMarked(opts.color, (madeFor = width()));
    return marked;
  };
}

/** A Marked instance rendering for the terminal: our own styles (none without color), no links a terminal would follow, no emoji shortcodes. */
function createMarked(color: boolean, width: number): Marked {
  const plain = (text: string): string => text;
  const style = (...formats: Array<Parameters<typeof styleText>[0]>): typeof plain => (color ? (text) => formats.reduce((acc, f) => styleText(f, acc), text) : plain);
  const code = style("yellow");
  const marked = new Marked(
    markedTerminal({
      width, reflowText: true, tab: 2, emoji: false, showSectionPrefix: !color, tableOptions: { style: { head: [], border: [] } },
      hr: plain, listitem: plain, table: plain, paragraph: plain, link: plain, text: plain,
      code, codespan: code, blockquote: style("gray", "italic"), html: style("gray"), heading: style("bold"), firstHeading: style("bold", "underline"),
      strong: style("bold"), em: style("italic"), del: style("strikethrough"), href: style("underline"),
    }),
  );
  // Code is indented and colored as a whole (no highlighter reading the process's color support); a link is its text
  // and its address, never an OSC 8 hyperlink the terminal would act on.
  marked.use({
    renderer: {
      code: (token: Tokens.Code) => `${token.text.split("\n").map((line) => `  ${code(line)}`).join("\n")}\n\n`,
      link(token: Tokens.Link) {
        const text = this.parser.parseInline(token.tokens);
        return text === token.href ? style("underline")(token.href) : `${text} (${style("underline")(token.href)})`;
      },
    },
  });
  return marked;
}
