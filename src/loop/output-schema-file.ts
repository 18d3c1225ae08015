// The JSON Schema file of a structured answer (`run --output-schema`, a cron job's `outputSchema`), read and checked before any request.
import { ConfigError } from "../errors.js";
import { readRegularText } from "../fs/regular-file.js";
import type { JsonSchema } from "../types.js";
import { createOutputFormat } from "./output.js";

/** Reads the JSON Schema of a structured answer from `file`. Throws ConfigError starting with `label`: missing, unreadable, not JSON, not an object's schema, uncheckable. */
export async function readOutputSchema(file: string, label = file): Promise<JsonSchema> {
  const raw = await readRegularText(file).catch((error: NodeJS.ErrnoException) => {
    throw new ConfigError(error.code === "ENOENT" ? `${label}: no such file` : `${label}: cannot be read: ${error.message}`);
  });
  let schema: unknown;
  try {
    schema = JSON.parse(raw);
  } catch (error) {
    throw new ConfigError(`${label}: not valid JSON: ${(error as Error).message}`);
  }
  const root = schema !== null && typeof schema === "object" && !Array.isArray(schema) ? (schema as JsonSchema) : undefined;
  if (root?.["type"] !== "object") {
    const found = root ? `"type": ${JSON.stringify(root["type"] ?? null)}` : JSON.stringify(schema).slice(0, 40);
    throw new ConfigError(`${label}: must be the JSON Schema of an object, {"type": "object", "properties": {...}}; found ${found}`);
  }
  try {
    createOutputFormat(root);
  } catch (error) {
    throw new ConfigError(`${label}: ${(error as Error).message}`);
  }
  return root;
}
