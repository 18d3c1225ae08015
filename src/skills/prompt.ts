// What the model reads of skills: the one-line-per-skill listing (layer 1) and a loaded skill (layer 2).

type ListedSkill = { name: string; description: string };

/** Default size of the layer-1 listing, in characters. */
export const DEFAULT_LISTING_BUDGET_CHARS = 8000;

const ELLIPSIS = "…";

function line(name: string, description: string): string {
  return description ? `- ${name}: ${description}` : `- ${name}`;
}

function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= ELLIPSIS.length) return "";
  return text.slice(0, max - ELLIPSIS.length).trimEnd() + ELLIPSIS;
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
export function formatSkillListing(skills: readonly ListedSkill[], budgetChars = DEFAULT_LISTING_BUDGET_CHARS): { text: string; shortenedTo?: number } {
  const sorted = [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const full = sorted.map((s) => line(s.name, s.description)).join("\n");
  if (full.length <= budgetChars) return { text: full };
  // Each described line costs its name, "- " and ": " plus a newline between lines.
  const fixed = sorted.reduce((sum, s) => sum + s.name.length + 4, 0) + Math.max(0, sorted.length - 1);
  const cap = fairCap(sorted.map((s) => s.description.length), Math.max(0, budgetChars - fixed));
  const text = sorted.map((s) => line(s.name, shorten(s.description, cap))).join("\n");
  return { text, shortenedTo: cap };
}

/** A loaded skill (layer 2): the body inside `<skill name="...">` tags, then its other files as absolute paths `read_file` can open (layer 3). */
export function formatSkillBody(name: string, dir: string, body: string, files: readonly string[], moreFiles = 0): string {
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
