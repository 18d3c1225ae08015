// SKILL.md and SOUL.md frontmatter, parsed safely (YAML only, no shared cache, no eval), and the Agent Skills rules.
import matter from "gray-matter";
import { orFallback } from "../errors.js";

/** A markdown file split: `data` (`{}` without frontmatter), `body` (after the closing `---`, unchanged), `hasFrontmatter`. */
export interface ParsedFrontmatter {
  data: Record<string, unknown>;
  body: string;
  hasFrontmatter: boolean;
}

// gray-matter evaluates `---js` blocks with eval(); a third-party SKILL.md must never run code on load.
const refuse = (language: string) => (): never => {
  throw new Error(`frontmatter language "${language}" is not allowed (use YAML)`);
};
const ENGINES = Object.fromEntries(["js", "javascript", "coffee", "coffeescript", "cson"].map((language) => [language, refuse(language)]));
const LOOSE_LINE = /^([A-Za-z][\w-]*):[ \t]*(.*)$/;

/** Throws with the YAML message for frontmatter that does not parse or is not a mapping. Options bypass gray-matter's shared cache. */
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
  return orFallback(() => JSON.parse(trimmed) as unknown, undefined);
}

/** The fields of a skill as read from its frontmatter, after the rules were applied. */
export interface SkillFields {
  /** The declared name, or the folder name when none was declared. */
  name: string;
  /** One line; empty when missing (a warning says so). */
  description: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, unknown>;
  /** From `allowed-tools`: a space-separated string or a list, kept as a list. */
  allowedTools?: string[];
}

/** Most characters of a skill's name, description and `compatibility` field. */
const MAX_NAME_CHARS = 64;
const MAX_DESCRIPTION_CHARS = 1024;
const MAX_COMPATIBILITY_CHARS = 500;
const NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Checks a frontmatter block against the Agent Skills rules; never throws: a broken rule is a sentence in `problems`, usable parts are kept. */
export function checkSkillFrontmatter(data: Record<string, unknown>, folder: string): { fields: SkillFields; problems: string[] } {
  const problems: string[] = [];
  const name = checkName(data["name"], folder, problems);
  const description = asText(data["description"])?.replace(/\s+/g, " ").trim() ?? "";
  if (description === "") problems.push(`"description" is required and must be non-empty text`);
  if (description.length > MAX_DESCRIPTION_CHARS) problems.push(`"description" is longer than ${MAX_DESCRIPTION_CHARS} characters`);
  const fields: SkillFields = { name, description };
  const { license, compatibility, metadata } = data;
  if (typeof license === "string") fields.license = license;
  else if (license !== undefined) problems.push(`"license" must be a string`);
  if (typeof compatibility === "string") fields.compatibility = compatibility;
  else if (compatibility !== undefined) problems.push(`"compatibility" must be a string`);
  if (typeof compatibility === "string" && compatibility.length > MAX_COMPATIBILITY_CHARS) problems.push(`"compatibility" is longer than ${MAX_COMPATIBILITY_CHARS} characters`);
  if (metadata !== null && typeof metadata === "object" && !Array.isArray(metadata)) fields.metadata = metadata as Record<string, unknown>;
  else if (metadata !== undefined) problems.push(`"metadata" must be a mapping`);
  const tools = data["allowed-tools"];
  if (typeof tools === "string") fields.allowedTools = tools.split(/[\s,]+/).filter(Boolean);
  else if (Array.isArray(tools) && tools.every((item) => typeof item === "string")) fields.allowedTools = [...tools];
  else if (tools !== undefined) problems.push(`"allowed-tools" must be a space-separated string`);
  return { fields, problems };
}

function asText(value: unknown): string | undefined {
  return typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : undefined;
}

function checkName(value: unknown, folder: string, problems: string[]): string {
  const text = asText(value)?.trim();
  if (text === undefined || text === "") {
    problems.push(`"name" is required; using the folder name "${folder}"`);
    return folder;
  }
  if (typeof value !== "string") problems.push(`"name" must be a string`);
  if (text.length > MAX_NAME_CHARS) problems.push(`"name" is longer than ${MAX_NAME_CHARS} characters`);
  if (!NAME_PATTERN.test(text)) problems.push(`"name" must be lowercase letters, digits and single hyphens (not at either end)`);
  if (text !== folder) problems.push(`"name" ("${text}") does not match its folder "${folder}"`);
  return text;
}
