// What `miniclaw run` prints: the reply (text), one JSON object (json), or one event per line then the result (stream-json); and its exit code.
import type { AgentEvent, JsonSchema, TurnResult } from "../types.js";
import type { CliArgs } from "./args.js";
import type { CliIo } from "./io.js";
import { namingServer } from "./render.js";
import { visibleJson, visibleReply, visibleText } from "./visible-text.js";

/** Stops after which a run exits 0: the model finished, or was cut by its token limit. A refusal is no answer. */
const ANSWERED = new Set(["end_turn", "stop_sequence", "max_tokens"]);

/** The run's stdin, whole: a pipe or file, or any non-terminal when the words are none or `-`; else undefined, so a run spawned with an open, silent stdin does not wait on it. */
export async function readPipedStdin(io: CliIo, words: readonly string[]): Promise<string | undefined> {
  const asked = words.length === 0 || (words.length === 1 && words[0] === "-");
  if (io.stdin.isTTY || !(io.stdinPiped || asked)) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/** The message of a run: its words, the piped input after them (or alone, for no words or `-`). */
export function runMessage(words: readonly string[], piped: string | undefined): string {
  const given = words.length === 1 && words[0] === "-" ? "" : words.join(" ").trim();
  const input = piped?.trim() ? piped.replace(/\s+$/, "") : "";
  return given && input ? `${given}\n\n${input}` : given || input;
}

/** The events of a stream-json run: each as one line of JSON on stdout, as it happens (the result comes from `report`). */
export function streamJson(io: CliIo): (event: AgentEvent) => void {
  return (event) => void io.stdout.write(`${JSON.stringify(event)}\n`);
}

/** Prints how the turn ended (`format`: the reply alone, one JSON object, or after the streamed events that object); 0 for an answer, 130 or 143 after a signal, else 1 with one line on stderr (JSON: the stop reason). With a schema, text prints the checked object alone, or exits 1. */
export function report(run: { result: TurnResult; format: NonNullable<CliArgs["outputFormat"]>; output: JsonSchema | undefined; server: string; signalled: number | undefined; durationMs: number }, io: CliIo): number {
  const { result, format, output, signalled } = run;
  const stopped = result.stopReason === "aborted";
  const answered = ANSWERED.has(result.stopReason) && (output === undefined || result.output !== undefined);
  const code = stopped ? (signalled ?? 130) : answered ? 0 : 1;
  if (format !== "text") {
    const { text, sessionKey, stopReason, usage, costUsd, iterations, error } = result;
    const object = { type: "result", result: text, session: sessionKey, stopReason, usage, costUsd, iterations, durationMs: run.durationMs, ...(result.output !== undefined && { output: result.output }), ...(error !== undefined && { error }) };
    io.stdout.write(`${JSON.stringify(object)}\n`);
  } else if (output !== undefined && result.output !== undefined) io.stdout.write(`${visibleJson(result.output)}\n`);
  else if (output === undefined && result.text) io.stdout.write(`${visibleReply(result.text, io.stdout)}\n`);
  if (stopped) io.stderr.write(signalled === 143 ? "terminated\n" : "interrupted\n");
  else if (code === 0 && result.stopReason === "max_tokens") io.stderr.write("(stopped: max_tokens)\n");
  else if (code !== 0) io.stderr.write(`miniclaw: ${result.stopReason}: ${visibleText(whyNot(result, output, run.server))}\n`);
  return code;
}

/** One line whatever the error holds (an API error can carry a multi-line body): a script reads the last line of stderr. */
function whyNot(result: TurnResult, output: JsonSchema | undefined, server: string): string {
  if (result.stopReason === "refusal") return "the model declined to answer";
  if (output !== undefined && result.error === undefined && ANSWERED.has(result.stopReason)) return "the turn ended without a structured answer";
  return namingServer(result.error ?? (result.stopReason === "error" ? "the turn failed" : "the turn stopped"), server).replace(/\s+/g, " ").trim();
}
