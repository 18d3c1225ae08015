// Structured output: the schema a turn's final answer must follow, as the API takes it and as it is checked here, and its file (`run --output-schema`, a cron job's `outputSchema`).
import { transformJSONSchema } from "@anthropic-ai/sdk/lib/transform-json-schema";
import * as z from "zod";
import { ConfigError, orConfigError } from "../errors.js";
import { readRegularText } from "../fs/regular-file.js";
import { isZodSchema } from "../tools/define.js";
import type { ContentBlockParam, JsonSchema } from "../types.js";

const MAX_ISSUES_SHOWN = 8;
/** The answer checked: the parsed value, or what was wrong with it in a few lines the model can act on. */
type OutputCheck = { ok: true; value: unknown } | { ok: false; problem: string };

/** A schema ready for a turn: `schema` as `output_config.format` takes it (the API's subset); `check` parses the answer and validates it against the schema as given. */
export type OutputFormat = { schema: Record<string, unknown>; check(text: string): OutputCheck };

/** Prepares a zod schema or a JSON Schema object. Throws ConfigError when it cannot be used: not an object schema, or unreadable. */
export function createOutputFormat(output: z.ZodType | Record<string, unknown>): OutputFormat {
  const zod = isZodSchema(output);
  const jsonObject = typeof output === "object" && output !== null && !Array.isArray(output);
  if (!zod && !jsonObject) throw new ConfigError("the output schema must be a zod schema or a JSON Schema object");
  const readable = (why: string): string => `the output schema is not a JSON Schema this library can check: ${why}`;
  const validator = zod ? output : orConfigError(() => z.fromJSONSchema(output as Parameters<typeof z.fromJSONSchema>[0]), readable);
  const jsonSchema = zod ? orConfigError(() => z.toJSONSchema(output, { reused: "ref" }) as Record<string, unknown>, (why) => `the output schema cannot be written as JSON Schema: ${why}`) : output;
  if (jsonSchema["type"] !== "object") throw new ConfigError(`the output schema must describe an object (its "type" must be "object"), got ${JSON.stringify(jsonSchema["type"] ?? null)}`);
  const schema = orConfigError(() => transformJSONSchema(jsonSchema) as Record<string, unknown>, (why) => `the output schema cannot be used: ${why}`);
  return { schema, check: (text) => checkAnswer(validator, text) };
}

function checkAnswer(validator: z.ZodType, text: string): OutputCheck {
  let value: unknown;
  try {
    // A compatible server without constrained output may wrap the JSON in a Markdown fence; the fence is not the answer.
    value = JSON.parse(/^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text)?.[1] ?? text);
  } catch (error) {
    return { ok: false, problem: text.trim() === "" ? "the answer was empty" : `the answer is not JSON (${(error as Error).message})` };
  }
  const result = validator.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  const issues = result.error.issues.slice(0, MAX_ISSUES_SHOWN).map((issue) => `${issue.path.map(String).join(".") || "(the object)"}: ${issue.message}`);
  const more = result.error.issues.length - issues.length;
  return { ok: false, problem: [...issues, ...(more > 0 ? [`and ${more} more`] : [])].join("; ") };
}

/** The answer of a response: its last run of text blocks (what came before a search or a tool call is not the answer). */
export function answerText(content: readonly ContentBlockParam[]): string {
  let first = content.length;
  while (first > 0 && content[first - 1]!.type === "text") first--;
  return content.slice(first).flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
}

/** Reads the JSON Schema of a structured answer from `file`. Throws ConfigError starting with `label`: missing, unreadable, not JSON, not an object's schema, uncheckable. */
export async function readOutputSchema(file: string, label = file): Promise<JsonSchema> {
  const raw = await readRegularText(file).catch((error: NodeJS.ErrnoException) => {
    throw new ConfigError(error.code === "ENOENT" ? `${label}: no such file` : `${label}: cannot be read: ${error.message}`);
  });
  const schema: unknown = orConfigError(() => JSON.parse(raw), (why) => `${label}: not valid JSON: ${why}`);
  const root = schema !== null && typeof schema === "object" && !Array.isArray(schema) ? (schema as JsonSchema) : undefined;
  if (root?.["type"] !== "object") {
    const found = root ? `"type": ${JSON.stringify(root["type"] ?? null)}` : JSON.stringify(schema).slice(0, 40);
    throw new ConfigError(`${label}: must be the JSON Schema of an object, {"type": "object", "properties": {...}}; found ${found}`);
  }
  orConfigError(() => createOutputFormat(root), (why) => `${label}: ${why}`);
  return root;
}
