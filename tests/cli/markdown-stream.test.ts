// The REPL's streaming Markdown, fed as the model streams it: what reaches the terminal.
import { describe, expect, it } from "vitest";
import { createMarkdownStream } from "../../src/cli/markdown-stream.js";

/** Everything written for `deltas`, streamed in that order and ended. */
function rendered(deltas: string[], color = true): string {
  let out = "";
  const stream = createMarkdownStream((text) => (out += text), { color, width: 80 });
  for (const delta of deltas) stream.push(delta);
  stream.end();
  return out;
}

describe("Markdown streamed to the terminal", () => {
  it("never lets a character reference put a bidi override or an invisible character on the terminal, even split across deltas", () => {
    const out = rendered(["Pay &#x20", "2e;fdp.exe and &#x2066;x&#x2069; &#x200b;z &#xe0041; &lrm;end\n", "# Head &#x202e;ing\n", "| a &#8238; |\n|---|\n| b |\n"]);
    expect(out).not.toMatch(/[\u202e\u2066\u2069\u200b\u200e\u{e0041}]/u);
    expect(out).toContain("\\u202e");
    expect(out).toContain("\\u200b");
  });

  it("keeps a fence open past an inner fence indented four spaces, so the text after the real fence is rendered, not code", () => {
    const out = rendered(["```md\nExample:\n    ```\n    nested\n    ```\n```\nAfter **bold** text\n"], false);
    expect(out).toContain("    nested");
    expect(out).toMatch(/After bold text/);
    expect(out).not.toContain("**bold**");
  });

  it("shows a reference definition as written, so its URL is not lost", () => {
    expect(rendered(["see [docs]\n\n[docs]: https://example.com/docs\n"], false)).toContain("[docs]: https://example.com/docs");
  });
});
