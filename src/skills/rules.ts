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

/** The result of checking one frontmatter block: usable fields plus the rules it broke. */
export interface CheckedSkill {
  fields: SkillFields;
  /** One short sentence per broken rule, without the file name. */
  problems: string[];
}

/** Most characters a skill name may have. */
export const MAX_SKILL_NAME_CHARS = 64;
/** Most characters a skill description may have. */
export const MAX_SKILL_DESCRIPTION_CHARS = 1024;
/** Most characters of the optional `compatibility` field. */
export const MAX_COMPATIBILITY_CHARS = 500;

const NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

function asText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

function checkName(value: unknown, folder: string, problems: string[]): string {
  const text = asText(value)?.trim();
  if (text === undefined || text === "") {
    problems.push(`"name" is required; using the folder name "${folder}"`);
    return folder;
  }
  if (typeof value !== "string") problems.push(`"name" must be a string`);
  if (text.length > MAX_SKILL_NAME_CHARS) problems.push(`"name" is longer than ${MAX_SKILL_NAME_CHARS} characters`);
  if (!NAME_PATTERN.test(text)) {
    problems.push(`"name" must be lowercase letters, digits and single hyphens (not at either end)`);
  }
  if (text !== folder) problems.push(`"name" ("${text}") does not match its folder "${folder}"`);
  return text;
}

function checkDescription(value: unknown, problems: string[]): string {
  const text = asText(value)?.replace(/\s+/g, " ").trim() ?? "";
  if (text === "") {
    problems.push(`"description" is required and must be non-empty text`);
    return "";
  }
  if (text.length > MAX_SKILL_DESCRIPTION_CHARS) {
    problems.push(`"description" is longer than ${MAX_SKILL_DESCRIPTION_CHARS} characters`);
  }
  return text;
}

function checkAllowedTools(value: unknown, problems: string[]): string[] | undefined {
  if (typeof value === "string") return value.split(/[\s,]+/).filter(Boolean);
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return [...value];
  problems.push(`"allowed-tools" must be a space-separated string`);
  return undefined;
}

/**
 * Checks a parsed frontmatter block against the Agent Skills rules. Never throws:
 * every broken rule becomes a problem and the usable parts are kept. Fields outside
 * the format (such as `homepage`) are common in the wild and are ignored silently.
 */
export function checkSkillFrontmatter(data: Record<string, unknown>, folder: string): CheckedSkill {
  const problems: string[] = [];
  const fields: SkillFields = {
    name: checkName(data["name"], folder, problems),
    description: checkDescription(data["description"], problems),
  };
  const license = data["license"];
  if (license !== undefined) {
    if (typeof license === "string") fields.license = license;
    else problems.push(`"license" must be a string`);
  }
  const compatibility = data["compatibility"];
  if (compatibility !== undefined) {
    if (typeof compatibility !== "string") problems.push(`"compatibility" must be a string`);
    else {
      fields.compatibility = compatibility;
      if (compatibility.length > MAX_COMPATIBILITY_CHARS) {
        problems.push(`"compatibility" is longer than ${MAX_COMPATIBILITY_CHARS} characters`);
      }
    }
  }
  const metadata = data["metadata"];
  if (metadata !== undefined) {
    if (metadata !== null && typeof metadata === "object" && !Array.isArray(metadata)) {
      fields.metadata = metadata as Record<string, unknown>;
    } else problems.push(`"metadata" must be a mapping`);
  }
  if (data["allowed-tools"] !== undefined) {
    const tools = checkAllowedTools(data["allowed-tools"], problems);
    if (tools) fields.allowedTools = tools;
  }
  return { fields, problems };
}
