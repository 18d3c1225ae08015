// Writes the "## Contents" list of each page of docs/ (and the README) from its headings: `node scripts/docs-toc.mjs`.
// tests/docs.test.ts checks that every list is current and every link resolves.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** GitHub's anchor of a heading: lowercase, punctuation dropped, spaces as hyphens. */
export function slug(heading) {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

/** The headings of a page below its title, outside code blocks: level 2 and 3. */
export function headings(text) {
  const found = [];
  let fenced = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const m = !fenced && /^(##|###) (.+)$/.exec(line);
    if (m && m[2] !== "Contents") found.push({ level: m[1].length, text: m[2] });
  }
  return found;
}

/** The Contents list a page should have. */
export function contents(text) {
  return headings(text).map((h) => `${h.level === 3 ? "  " : ""}- [${h.text.replace(/`/g, "")}](#${slug(h.text)})`).join("\n");
}

export function withContents(text) {
  return text.replace(/^## Contents\n(?:\n?- .*\n|  - .*\n)*/m, `## Contents\n\n${contents(text)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const pages = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => join("docs", f))];
  for (const page of pages) writeFileSync(join(ROOT, page), withContents(readFileSync(join(ROOT, page), "utf8")));
}
