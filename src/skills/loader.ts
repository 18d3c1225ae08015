// SkillLoader: finds SKILL.md files under the skill folders, checks them, and serves what the model reads: the listing (layer 1) and a skill (layer 2).
import { statSync, type Stats } from "node:fs";
import { basename, dirname } from "node:path";
import { safeSink } from "../deps.js";
import { messageOf, ToolError } from "../errors.js";
import { readRegularFileSync, readRegularText, fileVersion } from "../fs/regular-file.js";
import { checkSkillFrontmatter, findSkillFiles, listSkillResources, parseFrontmatter, parseLooseFrontmatter } from "./frontmatter.js";
import type { ParsedFrontmatter, SkillFields } from "./frontmatter.js";

/** One loaded skill: `file` its SKILL.md and `dir` its folder, where the body's relative paths start (both absolute); `root` its skills folder. */
export interface Skill extends SkillFields {
  file: string;
  dir: string;
  root: string;
}

/** `dirs` lowest precedence first (a later folder's skill wins a name clash); `onWarning` hears each problem (file and rule named) and must not throw. */
export interface SkillLoaderOptions {
  dirs: string[];
  onWarning?: (message: string) => void;
}

/** Thrown by `SkillLoader.body` for a name no loaded skill has: the model's to fix, so the message lists the available ones. */
export class UnknownSkillError extends ToolError {
  constructor(readonly skillName: string, readonly available: string[]) {
    super(`Unknown skill "${skillName}". Available skills: ${available.length > 0 ? available.join(", ") : "none are installed"}.`);
  }
}

/** What reading a SKILL.md came to: its frontmatter and body, or nothing, and the warning to give. */
type ParseOutcome = { parsed: ParsedFrontmatter | undefined; warning?: string };

/** Outcomes of the SKILL.md files this process read, by path, with the version of the file read. */
const parsedFiles = new Map<string, ParseOutcome & { version: string }>();
/** Most files of a skill's folder listed after its body. */
const MAX_LISTED_FILES = 100;

function firstLine(error: unknown): string {
  return messageOf(error).split("\n", 1)[0]!.trim();
}

/** Reads and parses a SKILL.md: strict YAML first, else line by line with a warning. Synchronous: it is small, and every turn loads them all. */
function readAndParse(file: string): ParseOutcome {
  let text: string;
  try {
    text = readRegularFileSync(file);
  } catch (error) {
    return { parsed: undefined, warning: `${file}: skipped, it cannot be read (${firstLine(error)})` };
  }
  const { parsed, error } = parseEither(text);
  if (error === undefined) return { parsed };
  if (parsed && typeof parsed.data["name"] === "string" && typeof parsed.data["description"] === "string") {
    return { parsed, warning: `${file}: frontmatter is not valid YAML (${firstLine(error)}); read its fields line by line` };
  }
  return { parsed: undefined, warning: `${file}: skipped, its frontmatter cannot be parsed (${firstLine(error)})` };
}

/** The frontmatter as strict YAML, else line by line with the YAML error (see parseLooseFrontmatter). */
function parseEither(text: string): { parsed: ParsedFrontmatter | undefined; error?: unknown } {
  try {
    return { parsed: parseFrontmatter(text) };
  } catch (error) {
    return { parsed: parseLooseFrontmatter(text), error };
  }
}

/** Loads skills from the folders it is given and serves them to the prompt and to `load_skill`; `load()` rescans from scratch. */
export class SkillLoader {
  private skills = new Map<string, Skill>();
  private listings = new Map<number, string>();
  /** The caller's sink: one that throws must not break loading. */
  private readonly warn: (message: string) => void;

  constructor(private readonly options: SkillLoaderOptions) {
    this.warn = safeSink(options.onWarning);
  }

  /** Scans every folder. Missing folders are skipped quietly; bad files are reported and skipped or loaded leniently. */
  async load(): Promise<void> {
    const found = new Map<string, Skill>();
    for (const root of this.options.dirs) {
      const fromRoot = new Map<string, Skill>();
      for (const file of findSkillFiles(root, this.warn)) {
        const skill = this.readSkill(root, file);
        if (!skill) continue;
        const earlier = fromRoot.get(skill.name);
        if (earlier) this.warn(`${file}: skill name "${skill.name}" is also used by ${earlier.file}; keeping the first`);
        else fromRoot.set(skill.name, skill);
      }
      for (const [name, skill] of fromRoot) found.set(name, skill);
    }
    this.skills = found;
    this.listings.clear();
  }

  /** Every loaded skill, sorted by name. */
  list(): Skill[] {
    return [...this.skills.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The skill of that name, if loaded. */
  get(name: string): Skill | undefined {
    return this.skills.get(name);
  }

  /** Layer 1: one `- name: description` line per skill, sorted, within `budgetChars` (see formatSkillListing; one warning per budget and load). */
  listing(budgetChars = DEFAULT_LISTING_BUDGET_CHARS): string {
    const cached = this.listings.get(budgetChars);
    if (cached !== undefined) return cached;
    const { text, shortenedTo } = formatSkillListing(this.list(), budgetChars);
    if (shortenedTo !== undefined) {
      const over = text.length > budgetChars ? `; the names alone exceed it, listing is ${text.length} characters` : "";
      this.warn(`skills listing over its ${budgetChars}-character budget: descriptions shortened to ${shortenedTo} characters${over}`);
    }
    this.listings.set(budgetChars, text);
    return text;
  }

  /** Layer 2: the skill's body, read fresh from disk, and its other files (see formatSkillBody). Throws `UnknownSkillError` for an unknown name. */
  async body(name: string): Promise<string> {
    const skill = this.skills.get(name);
    if (!skill) throw new UnknownSkillError(name, this.list().map((s) => s.name));
    const text = await readRegularText(skill.file);
    const body = parseEither(text).parsed?.body ?? text;
    const files = listSkillResources(skill.dir, skill.file);
    const more = Math.max(0, files.length - MAX_LISTED_FILES);
    return formatSkillBody(skill.name, skill.dir, body, files.slice(0, MAX_LISTED_FILES), more);
  }

  private readSkill(root: string, file: string): Skill | undefined {
    const parsed = this.parse(file);
    if (!parsed) return undefined;
    if (!parsed.hasFrontmatter) {
      this.warn(`${file}: skipped, it has no frontmatter (a --- block with name and description)`);
      return undefined;
    }
    const dir = dirname(file);
    const { fields, problems } = checkSkillFrontmatter(parsed.data, basename(dir));
    for (const problem of problems) this.warn(`${file}: ${problem}`);
    return { ...fields, file, dir, root };
  }

  /** The frontmatter of a SKILL.md; a file unchanged since an earlier load of this process (see fileVersion) is not read again, its warning repeated. */
  private parse(file: string): ParsedFrontmatter | undefined {
    let info: Stats;
    try {
      info = statSync(file);
    } catch (error) {
      this.warn(`${file}: skipped, it cannot be read (${firstLine(error)})`);
      return undefined;
    }
    // Only a regular file is read: a FIFO or a device (a link to /dev/zero) would never end.
    if (!info.isFile()) {
      this.warn(`${file}: skipped, it is not a regular file`);
      return undefined;
    }
    const version = fileVersion(info, Date.now());
    const known = parsedFiles.get(file);
    const outcome = version !== "" && known?.version === version ? known : { version, ...readAndParse(file) };
    if (version !== "") parsedFiles.set(file, outcome);
    if (outcome.warning) this.warn(outcome.warning);
    // A copy of the fields: a skill's metadata is the caller's to change, never the next load's.
    return outcome.parsed && { ...outcome.parsed, data: structuredClone(outcome.parsed.data) };
  }
}

type ListedSkill = { name: string; description: string };

/** Default size of the layer-1 listing, in characters. */
const DEFAULT_LISTING_BUDGET_CHARS = 8000;

const ELLIPSIS = "…";

function line(name: string, description: string): string {
  return description ? `- ${name}: ${description}` : `- ${name}`;
}

/** The largest cap such that every description cut to it fits in `room` characters in total. */
function fairCap(lengths: number[], room: number): number {
  let low = 0;
  let high = Math.max(0, ...lengths);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    const used = lengths.reduce((sum, n) => sum + Math.min(n, mid), 0);
    if (used <= room) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Layer 1: a `- name: description` line per skill, sorted; long descriptions share `budgetChars`, cut with "…" (`shortenedTo`); no skill is dropped, even past it. */
function formatSkillListing(skills: readonly ListedSkill[], budgetChars = DEFAULT_LISTING_BUDGET_CHARS): { text: string; shortenedTo?: number } {
  const sorted = [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const full = sorted.map((s) => line(s.name, s.description)).join("\n");
  if (full.length <= budgetChars) return { text: full };
  // Each described line costs its name, "- " and ": " plus a newline between lines.
  const fixed = sorted.reduce((sum, s) => sum + s.name.length + 4, 0) + Math.max(0, sorted.length - 1);
  const cap = fairCap(sorted.map((s) => s.description.length), Math.max(0, budgetChars - fixed));
  const shorten = (text: string): string =>
    text.length <= cap ? text : cap <= ELLIPSIS.length ? "" : text.slice(0, cap - ELLIPSIS.length).trimEnd() + ELLIPSIS;
  const text = sorted.map((s) => line(s.name, shorten(s.description))).join("\n");
  return { text, shortenedTo: cap };
}

/** A loaded skill (layer 2): the body inside `<skill name="...">` tags, then its other files as absolute paths `read_file` can open (layer 3). */
function formatSkillBody(name: string, dir: string, body: string, files: readonly string[], moreFiles = 0): string {
  const attribute = name.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const parts = [`<skill name="${attribute}">`, body.trim(), "</skill>"];
  if (files.length > 0) {
    parts.push(
      "",
      `Relative paths in this skill are relative to its folder: ${dir}`,
      "Its other files (open them with read_file when the instructions call for them):",
      ...files.map((file) => `- ${file}`),
    );
    if (moreFiles > 0) parts.push(`- … and ${moreFiles} more under ${dir}`);
  }
  return parts.join("\n");
}
