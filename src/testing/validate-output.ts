// Validation of `output_config`: the effort level and a structured output format's JSON Schema.
import { isRecord } from "./conversation.js";

/** The effort levels the API accepts. */
export const EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;

/** Keywords whose value is one subschema, a list of them, or a map of them. */
const SINGLE = ["items", "not", "contains", "additionalItems", "if", "then", "else"] as const;
const LISTS = ["anyOf", "allOf", "oneOf", "prefixItems", "items"] as const;
const MAPS = ["properties", "$defs", "definitions", "patternProperties", "dependentSchemas"] as const;


function extraKey(value: Record<string, unknown>, allowed: readonly string[], path: string): string | null {
  const extra = Object.keys(value).find((key) => !allowed.includes(key));
  return extra === undefined ? null : `${path}.${extra}: Extra inputs are not permitted`;
}

function isObjectSchema(schema: Record<string, unknown>): boolean {
  const type = schema.type;
  return type === "object" || (Array.isArray(type) && type.includes("object")) || (type === undefined && isRecord(schema.properties));
}

/** The subschemas of `schema` with their paths, one level down. */
function children(schema: Record<string, unknown>, path: string): Array<[unknown, string]> {
  const found: Array<[unknown, string]> = [];
  for (const key of SINGLE) if (isRecord(schema[key])) found.push([schema[key], `${path}.${key}`]);
  for (const key of LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((item, k) => found.push([item, `${path}.${key}.${k}`]));
  }
  for (const key of MAPS) {
    const map = schema[key];
    if (isRecord(map)) for (const [name, item] of Object.entries(map)) found.push([item, `${path}.${key}.${name}`]);
  }
  return found;
}

/** The first object schema at or under `schema` that does not set `additionalProperties: false`. */
function checkSchema(schema: unknown, path: string): string | null {
  if (!isRecord(schema)) return null;
  if (isObjectSchema(schema) && schema.additionalProperties !== false) {
    return `${path}: For 'object' type, 'additionalProperties' must be explicitly set to false`;
  }
  for (const [child, childPath] of children(schema, path)) {
    const error = checkSchema(child, childPath);
    if (error) return error;
  }
  return null;
}

function checkFormat(format: unknown): string | null {
  const path = "output_config.format";
  if (format === undefined || format === null) return null;
  if (!isRecord(format)) return `${path}: Input should be a valid dictionary or object`;
  if (format.type !== "json_schema") return `${path}.type: Input should be 'json_schema'`;
  const extra = extraKey(format, ["type", "schema"], path);
  if (extra) return extra;
  const schema = format.schema;
  if (schema === undefined) return `${path}.schema: Field required`;
  if (!isRecord(schema)) return `${path}.schema: Input should be a valid dictionary`;
  if (schema.type !== "object") return `${path}.schema.type: The root schema must have type 'object'`;
  return checkSchema(schema, `${path}.schema`);
}

/**
 * The first problem of an `output_config` value, or null: only `effort` (one of
 * EFFORTS) and `format` (`{type: "json_schema", schema}`, the schema's root an
 * object and every object schema inside it closed with `additionalProperties: false`).
 */
export function checkOutputConfig(config: unknown): string | null {
  if (config === undefined || config === null) return null;
  if (!isRecord(config)) return "output_config: Input should be a valid dictionary or object";
  const extra = extraKey(config, ["effort", "format"], "output_config");
  if (extra) return extra;
  const effort = config.effort;
  if (effort !== undefined && effort !== null && !(EFFORTS as readonly unknown[]).includes(effort)) {
    return `output_config.effort: Input should be ${EFFORTS.slice(0, -1).map((e) => `'${e}'`).join(", ")} or '${EFFORTS.at(-1)}'`;
  }
  return checkFormat(config.format);
}
