// The Agent Skills frontmatter rules: what a SKILL.md must declare, checked leniently.

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
  const fields: SkillFields = { name: checkName(data["name"], folder, problems), description: checkDescription(data["description"], problems) };
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

function checkDescription(value: unknown, problems: string[]): string {
  const text = asText(value)?.replace(/\s+/g, " ").trim() ?? "";
  if (text === "") problems.push(`"description" is required and must be non-empty text`);
  if (text.length > MAX_DESCRIPTION_CHARS) problems.push(`"description" is longer than ${MAX_DESCRIPTION_CHARS} characters`);
  return text;
}
