// The scripted model's rules that play the Weekend Researcher offline: read the brief, rewrite it as the steering says, freeze it at the end.
import type { RecordedRequest, Reply, Rule } from "../../src/testing/index.js";

/** The memory key of the brief, as the researcher's SOUL.md names it. */
export const BRIEF_KEY = "weekend-brief";

type Block = { type: string; text?: string; id?: string; name?: string; tool_use_id?: string; content?: unknown };

const MOUNTAINS = ["- Saturday: a hike in the Sintra hills, Pena park at opening time", "- Sunday: the Arrábida ridge walk, back by 18:00"];
const COAST = ["- Saturday: the coast path from Cascais to Guincho beach", "- Sunday: the Comporta beaches, by the 10:00 ferry from Setúbal"];

/**
 * One rule that answers every request as the researcher would: with no tool result yet it reads
 * the brief (`memory_search`), after the search it saves the brief's next version (`save_memory`),
 * after the save it says what changed. The version follows the run's own message: a steer ("The
 * user added: …") moves the plan to the coast, the final prompt ("Freeze the brief") freezes it.
 */
export function researcherRules(): Rule[] {
  return [{ reply: (request) => researcherReply(request) }];
}

function researcherReply(request: RecordedRequest): Reply {
  const opening = openingText(request);
  const result = lastToolResult(request);
  if (result === undefined) {
    return { text: "Reading the brief first.", toolUses: [{ name: "memory_search", input: { query: BRIEF_KEY } }] };
  }
  if (result.name === "memory_search") {
    return { text: "Saving the brief.", toolUses: [{ name: "save_memory", input: { key: BRIEF_KEY, content: nextBrief(opening, result.text) } }] };
  }
  if (/freeze the brief/i.test(opening)) return { text: "The brief is final: the plan stands as saved, and what was not settled is listed as such." };
  const steer = steerOf(opening);
  if (steer) return { text: `Followed your steer (${steer}): the plan is on the coast now. Still open: the ferry times on Sunday.` };
  return { text: "First brief written: two days in the hills around Lisbon. Still open: whether to book Pena park tickets." };
}

/** The brief after this wake-up: a first draft, a draft that follows the user's steer, or the frozen final version. */
function nextBrief(opening: string, found: string): string {
  const steer = steerOf(opening);
  const onCoast = steer !== undefined || /coast/i.test(found);
  const plan = onCoast ? COAST : MOUNTAINS;
  if (/freeze the brief/i.test(opening)) {
    return brief("final, frozen at the last wake-up", onCoast ? "focus on the coast, not the mountains" : "none", plan, "## Not settled\n- Sunday's ferry times: check on the day");
  }
  if (steer !== undefined) return brief("draft, revised after the user's steer", steer, plan, "## Open questions\n- Sunday's ferry times");
  return brief("draft", "none yet", plan, "## Open questions\n- Pena park tickets: book ahead or not?");
}

function brief(status: string, steering: string, plan: string[], open: string): string {
  return ["# Weekend brief", `Status: ${status}`, `Steering: ${steering}`, "## Plan", ...plan, open, ""].join("\n");
}

/** What the user added to the run's message, if anything. */
function steerOf(opening: string): string | undefined {
  return /The user added: (.+)/.exec(opening)?.[1]?.trim();
}

/** The text of the last user message that has text: the run's own message, with any steering joined to it. */
function openingText(request: RecordedRequest): string {
  for (const message of [...(request.body.messages ?? [])].reverse()) {
    if (message.role !== "user") continue;
    if (typeof message.content === "string") return message.content;
    const texts = (message.content as Block[]).filter((b) => b.type === "text").map((b) => b.text ?? "");
    if (texts.length > 0) return texts.join("\n");
  }
  return "";
}

/** The tool result that ends the request, with the name of the tool it answers; undefined when the request does not end with one. */
function lastToolResult(request: RecordedRequest): { name: string; text: string } | undefined {
  const messages = request.body.messages ?? [];
  const last = messages.at(-1);
  if (!last || last.role !== "user" || typeof last.content === "string") return undefined;
  const result = (last.content as Block[]).findLast((b) => b.type === "tool_result");
  if (!result) return undefined;
  const calls = messages.flatMap((m) => (m.role === "assistant" && typeof m.content !== "string" ? (m.content as Block[]) : []));
  const name = calls.find((b) => b.type === "tool_use" && b.id === result.tool_use_id)?.name ?? "";
  const text = typeof result.content === "string" ? result.content : ((result.content as Block[] | undefined) ?? []).map((b) => b.text ?? "").join("\n");
  return { name, text };
}
