// Configuration a person writes (cron.json, mcp.json, SOUL.md, settings, library options): read, parsed, checked, one line per problem.
import type * as z from "zod";
import { ConfigError, ifMissing, orConfigError } from "../errors.js";
import { readRegularText } from "./regular-file.js";

/** The text of a configuration file (a regular one), or undefined when it is missing and `optional`. Throws ConfigError naming the file, with `hint` when missing. */
export async function readConfigText(file: string, options: { optional?: boolean; hint?: string } = {}): Promise<string | undefined> {
  const unreadable = (cause: Error): Error => new ConfigError(`${file}: cannot be read: ${cause.message}`);
  const text = await readRegularText(file).catch((error: unknown) => ifMissing(error, undefined, unreadable));
  if (text === undefined && !options.optional) throw new ConfigError(`${file} not found${options.hint ? `: ${options.hint}` : ""}`);
  return text;
}

/** The JSON of a configuration file's text; throws ConfigError naming `where` when it does not parse. */
export function parseJsonConfig(text: string, where: string): unknown {
  return orConfigError(() => JSON.parse(text), (why) => `${where}: not valid JSON: ${why}`);
}

/** `value` checked by `schema`, else ConfigError "where: field: problem" for the first issue; an unknown field gets the known ones, the closest, or `aliases`. */
export function checkConfig<S extends z.ZodType>(schema: S, value: unknown, where: string, aliases: Readonly<Record<string, string>> = {}): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ConfigError(`${where}: ${describeIssue(parsed.error.issues[0], schema, aliases)}`);
}

/** `field: problem` for one zod issue, with the known fields and a suggestion for an unknown one. */
export function describeIssue(issue: z.core.$ZodIssue | undefined, schema: z.ZodType, aliases: Readonly<Record<string, string>> = {}): string {
  if (!issue) return "is invalid";
  const field = issue.path.map(String).join(".");
  if (issue.code !== "unrecognized_keys") return field ? `${field}: ${issue.message}` : issue.message;
  const known = knownKeys(schema, issue.path);
  const unknown = issue.keys.map((key) => {
    const hint = aliases[key] ?? closest(key, known);
    if (hint === undefined) return `"${key}"`;
    return /^[\w.-]+$/.test(hint) ? `"${key}" (did you mean "${hint}"?)` : `"${key}" (${hint})`;
  });
  const message = `unknown field${issue.keys.length > 1 ? "s" : ""} ${unknown.join(", ")}${known.length ? ` (known: ${known.join(", ")})` : ""}`;
  return field ? `${field}: ${message}` : message;
}

/** The keys of the object schema at `path` inside `schema` (objects and arrays followed), or none. */
function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let node: unknown = schema;
  for (const step of path) node = childOf(unwrap(node), step);
  const shape = (unwrap(node) as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

function childOf(node: unknown, step: PropertyKey): unknown {
  const def = (node as { def?: { type?: string; element?: unknown; valueType?: unknown } } | undefined)?.def;
  if (def?.type === "array") return def.element;
  if (def?.type === "record") return def.valueType;
  return (node as { shape?: Record<string, unknown> } | undefined)?.shape?.[String(step)];
}

/** Optional, nullable, default and pipe wrappers removed. */
function unwrap(node: unknown): unknown {
  const def = (node as { def?: { innerType?: unknown; in?: unknown } } | undefined)?.def;
  const inner = def?.innerType ?? def?.in;
  return inner === undefined ? node : unwrap(inner);
}

/** The known key nearest to `key` by edit distance, when it is near enough to be a misspelling. */
export function closest(key: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase());
    if (distance <= Math.max(1, Math.floor(name.length / 4)) && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}
