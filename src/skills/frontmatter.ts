// Safe frontmatter parsing for SKILL.md and SOUL.md: YAML only, no shared cache, no code evaluation.
import matter from "gray-matter";

/** A markdown file split into its frontmatter data and its body. */
export interface ParsedFrontmatter {
  /** The frontmatter as a plain object; `{}` when the file has none. */
  data: Record<string, unknown>;
  /** The text after the closing `---`, unchanged. */
  body: string;
  /** True when the file starts with a `---` block. */
  hasFrontmatter: boolean;
}

// gray-matter evaluates `---js` blocks with eval(); a third-party SKILL.md must never run code on load.
const refuse = (language: string) => (): never => {
  throw new Error(`frontmatter language "${language}" is not allowed (use YAML)`);
};
const ENGINES = Object.fromEntries(["js", "javascript", "coffee", "coffeescript", "cson"].map((language) => [language, refuse(language)]));
const LOOSE_LINE = /^([A-Za-z][\w-]*):[ \t]*(.*)$/;

/**
 * Parses the frontmatter of a markdown text; throws with the YAML message when it cannot be parsed or is not a mapping.
 * Options are always passed: they bypass gray-matter's cache, which hands back one (mutable) object for equal text.
 */
export function parseFrontmatter(text: string): ParsedFrontmatter {
  const file = matter(normalize(text), { engines: ENGINES });
  const raw: unknown = file.data;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new Error("frontmatter is not a mapping of fields");
  // gray-matter marks an empty `---` block with `isEmpty`, which its types leave out.
  return { data: { ...(raw as Record<string, unknown>) }, body: file.content, hasFrontmatter: (file as { isEmpty?: boolean }).isEmpty === true || file.matter.length > 0 };
}

/** The top-level `key: value` lines of a frontmatter block that is not YAML (an unquoted ": " in a value); undefined without a block. */
export function parseLooseFrontmatter(text: string): ParsedFrontmatter | undefined {
  const normalized = normalize(text);
  const match = /^---[ \t]*\n([\s\S]*?)\n---[ \t]*(?:\n|$)/.exec(normalized);
  if (!match) return undefined;
  const data: Record<string, unknown> = {};
  for (const line of (match[1] ?? "").split("\n")) {
    const field = LOOSE_LINE.exec(line);
    const value = field?.[2] ? looseValue(field[2]) : undefined;
    if (field?.[1] && value !== undefined) data[field[1]] = value;
  }
  return { data, body: normalized.slice(match[0].length), hasFrontmatter: true };
}

function normalize(text: string): string {
  return text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
}

function looseValue(value: string): unknown {
  const trimmed = value.trim();
  if (!/^[{[]/.test(trimmed)) return /^(["'])(.*)\1$/.exec(trimmed)?.[2] ?? trimmed;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return undefined;
  }
}
