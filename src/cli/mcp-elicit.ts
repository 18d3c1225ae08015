// A server's form at the terminal: each field asked in turn (a key for yes/no and choices, a line for text and numbers), then send, decline or cancel.
import { styleText } from "node:util";
import type { Elicit, ElicitationAnswer, ElicitationRequest } from "../mcp/host.js";
import type { LineInput } from "./line-input.js";
import { CTRL_C, CTRL_D } from "./terminal-keys.js";
import { visibleLine } from "./visible-text.js";

type Field = { type?: string; title?: string; description?: string; default?: unknown; enum?: unknown[]; oneOf?: Array<{ const?: unknown; title?: string }>; minimum?: number; maximum?: number };
type Out = { write(text: string): void };
/** Nobody answered a field: the whole form is cancelled. */
const CANCEL = Symbol("cancel");

/** Elicitation at the terminal: each field asked in turn (Enter keeps its default, Ctrl-C cancels), then send/decline/cancel; a URL is asked about; a turn interrupted cancels. Escaped. */
export function terminalElicit(input: LineInput, out: Out, opts: { color: boolean }): Elicit {
  const paint = (text: string): string => (opts.color ? styleText("cyan", text) : text);
  return async (request, signal) => {
    out.write(`${paint(`MCP server "${request.server}" asks: `)}${visibleLine(request.message, 400)}\n`);
    if (request.mode === "url") return askUrl(input, out, request, paint);
    const content: Record<string, unknown> = {};
    const schema = (request.schema ?? {}) as { properties?: Record<string, Field>; required?: string[] };
    for (const [name, field] of Object.entries(schema.properties ?? {})) {
      if (signal.aborted) return { action: "cancel" };
      const value = await askField(input, out, name, field, (schema.required ?? []).includes(name), paint);
      if (value === CANCEL) return cancelled(out);
      if (value !== undefined) content[name] = value;
    }
    const key = await input.askKey(paint("Send it? [s]end / [d]ecline / [c]ancel "));
    out.write("\n");
    if (key === "s" || key === "y") return { action: "accept", content };
    return key === "d" || key === "n" ? { action: "decline" } : cancelled(out);
  };
}

async function askUrl(input: LineInput, out: Out, request: ElicitationRequest, paint: (t: string) => string): Promise<ElicitationAnswer> {
  out.write(`  ${visibleLine(request.url ?? "", 400)}\n`);
  const key = await input.askKey(paint("Open it? [y]es (I open it) / [d]ecline / [c]ancel "));
  out.write("\n");
  return key === "y" ? { action: "accept" } : key === "d" || key === "n" ? { action: "decline" } : cancelled(out);
}

/** One field's value: undefined when left empty (the default applies), CANCEL on Ctrl-C or the end of input. */
async function askField(input: LineInput, out: Out, name: string, field: Field, required: boolean, paint: (t: string) => string): Promise<unknown> {
  const label = `${visibleLine(field.title ?? name, 60)}${field.description ? ` (${visibleLine(field.description, 120)})` : ""}${field.default !== undefined ? ` [${visibleLine(String(field.default), 40)}]` : ""}${required ? "" : " (optional)"}`;
  const choices = field.enum ?? field.oneOf?.map((o) => o.const);
  if (field.type === "boolean") {
    const key = await input.askKey(paint(`${label} [y/n] `));
    out.write("\n");
    return key === CTRL_C || key === CTRL_D ? CANCEL : key === "y" ? true : key === "n" ? false : undefined;
  }
  if (choices && choices.length > 0 && choices.length <= 9) {
    out.write(`${paint(label)}\n${choices.map((c, i) => `  ${i + 1}. ${visibleLine(String(field.oneOf?.[i]?.title ?? c), 80)}`).join("\n")}\n`);
    const key = await input.askKey(paint("Choose a number (Enter: none or the default) "));
    out.write("\n");
    return key === CTRL_C || key === CTRL_D ? CANCEL : choices[Number(key) - 1];
  }
  for (;;) {
    const line = await input.next(paint(`${label}: `));
    if (line === undefined) return CANCEL;
    const text = line.trim();
    if (text === "") return required && field.default === undefined ? (out.write("  (required)\n"), askField(input, out, name, field, required, paint)) : undefined;
    if (field.type !== "number" && field.type !== "integer") return text;
    const value = Number(text);
    if (Number.isFinite(value) && (field.type === "number" || Number.isInteger(value))) return value;
    out.write(`  (a${field.type === "integer" ? " whole" : ""} number, please)\n`);
  }
}

function cancelled(out: Out): ElicitationAnswer {
  out.write("  (cancelled)\n");
  return { action: "cancel" };
}
