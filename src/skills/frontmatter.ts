// SKILL.md and SOUL.md frontmatter, parsed safely (YAML only, no shared cache, no eval), the Agent Skills rules, and where the skill files are.
import { readdirSync, realpathSync, statSync, type Dirent } from "node:fs";
import { join, resolve } from "node:path";
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

const SKILL_FILE = "SKILL.md";
/** How deep below a skills folder a SKILL.md is looked for (`<dir>/<collection>/<name>/SKILL.md` is depth 3). */
const MAX_SKILL_DEPTH = 5;
/** Most files listed for one skill, so a huge folder cannot flood a tool result. */
const MAX_RESOURCE_FILES = 1000;

function skipped(name: string): boolean {
  return name.startsWith(".") || name === "node_modules" || name === "__pycache__";
}

/** A folder's entries; none when it cannot be listed. */
function entries(dir: string): Dirent[] {
  return orFallback(() => readdirSync(dir, { withFileTypes: true }), []);
}

/** A folder, or a link to one; a link loop (ELOOP) or an unreadable target is no skill folder. */
function isDirectory(path: string, entry: Dirent): boolean {
  if (entry.isDirectory()) return true;
  return entry.isSymbolicLink() && orFallback(() => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true, false);
}

/**
 * Every SKILL.md under `root`, sorted: a folder holding one is a skill, others are searched to MAX_SKILL_DEPTH, hidden ones
 * and `node_modules` skipped, links followed once. Synchronous: small directory reads take microseconds, the pool ~0.3 ms.
 */
export function findSkillFiles(root: string, warn: (message: string) => void): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  // `real` is the folder's real path, which `seen` keys on: asked of the system only for the root and for links.
  function walk(dir: string, real: string, depth: number): void {
    if (seen.has(real)) return;
    seen.add(real);
    const list = entries(dir);
    if (list.some((entry) => entry.name === SKILL_FILE && !entry.isDirectory())) {
      found.push(join(dir, SKILL_FILE));
      return;
    }
    if (depth >= MAX_SKILL_DEPTH) {
      if (list.some((entry) => entry.isDirectory() && !skipped(entry.name))) warn(`${dir}: not searched for skills, deeper than ${MAX_SKILL_DEPTH} levels below ${root}`);
      return;
    }
    for (const entry of list.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (skipped(entry.name) || !isDirectory(path, entry)) continue;
      walk(path, entry.isSymbolicLink() ? realPath(path) : join(real, entry.name), depth + 1);
    }
  }
  const start = resolve(root);
  walk(start, realPath(start), 0);
  return found.sort();
}

/** The path with every link resolved; the path itself when that fails (a dangling or unreadable path is listed as empty). */
function realPath(path: string): string {
  return orFallback(() => realpathSync.native(path), path);
}

/** The absolute paths of a skill's files other than its SKILL.md, sorted; hidden files skipped. */
export function listSkillResources(dir: string, skillFile: string): string[] {
  const files: string[] = [];
  function walk(current: string): void {
    for (const entry of entries(current)) {
      if (files.length >= MAX_RESOURCE_FILES || skipped(entry.name)) continue;
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (path !== skillFile) files.push(path);
    }
  }
  walk(dir);
  return files.sort();
}
