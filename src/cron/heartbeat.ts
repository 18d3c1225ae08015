// Heartbeat rules as pure functions: when HEARTBEAT.md has content, the prompt it becomes, the HEARTBEAT_OK reply, active hours.
import { formatTime } from "./cron-runs.js";

/** The reply token meaning "nothing needs attention". Stripped by `interpretHeartbeatReply` alone; never printed. */
const HEARTBEAT_TOKEN = "HEARTBEAT_OK";
/** A reply carrying the token is an acknowledgement only while what remains is at most this long. */
const HEARTBEAT_ACK_MAX_CHARS = 300;
/** The checklist file heartbeat jobs read, inside the workspace. */
export const HEARTBEAT_FILE = "HEARTBEAT.md";

/** A daily window `HH:MM`–`HH:MM` in the job's time zone; `end` before `start` wraps past midnight. */
export type ActiveHours = { start: string; end: string };

const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
const NOT_CONTENT: RegExp[] = [
  /^\s*$/, // blank
  /^\s*#{1,6}(\s.*)?$/, // heading
  /^\s*(?:[-*+]|\d+[.)])\s*(?:\[[ xX]?\])?\s*$/, // empty list item or checkbox
  /^\s*(?:[-*_=]\s*){3,}$/, // rule or setext underline
];

/** True when HEARTBEAT.md holds something to check: a line that is not blank, not a heading, not an empty list item, outside HTML comments. False means no model call. */
export function hasHeartbeatContent(markdown: string): boolean {
  return markdown.replace(COMMENT, "").split(/\r?\n/).some((line) => !NOT_CONTENT.some((pattern) => pattern.test(line)));
}

/** The message a heartbeat run sends: the checklist and how to answer; `extra` is the job's own prompt, if any. */
export function buildHeartbeatPrompt(checklist: string, extra?: string): string {
  return [
    "This is a scheduled heartbeat: nobody is watching live, and commands that need approval are refused.",
    `Work through the checklist below (from ${HEARTBEAT_FILE}), using your tools where an item needs a look.`,
    `If nothing needs the user's attention, reply with exactly ${HEARTBEAT_TOKEN} and nothing else.`,
    `Otherwise reply with a short alert saying what needs attention and why, without ${HEARTBEAT_TOKEN}.`,
    ...(extra?.trim() ? ["", extra.trim()] : []),
    "",
    "<checklist>",
    checklist.replace(COMMENT, "").trim(),
    "</checklist>",
  ].join("\n");
}

// The token, optionally wrapped in markdown emphasis or code marks and followed by a full stop.
const WRAP = "[\\s*_`~]*";
const TOKEN = `${HEARTBEAT_TOKEN}(?![A-Za-z0-9_])[*_\`~]*[.!]?`;
const LEADING = new RegExp(`^${WRAP}${TOKEN}`);
const TRAILING = new RegExp(`${WRAP}${TOKEN}${WRAP}$`);

/**
 * Reads a heartbeat reply. The token at the start or end is removed; the reply is an acknowledgement (`ok`) when the token was
 * there and what remains is short. `text` is what may be logged or shown: it never starts or ends with the token.
 */
export function interpretHeartbeatReply(reply: string): { ok: boolean; text: string } {
  let text = reply.trim();
  let found = false;
  for (const pattern of [LEADING, TRAILING]) {
    const stripped = text.replace(pattern, "").trim();
    if (stripped !== text) {
      found = true;
      text = stripped;
    }
  }
  return { ok: found && text.length <= HEARTBEAT_ACK_MAX_CHARS, text };
}

/** Minutes since midnight of `HH:MM` (`24:00` is 1440). */
function minutesOf(time: string): number {
  const [h, m] = time.split(":").map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

/** True when `at` (epoch ms) falls inside the window, read in `timeZone` (default the machine's). `start` is inclusive, `end` exclusive; `end` before `start` wraps midnight. */
export function isWithinActiveHours(at: number, hours: ActiveHours, timeZone?: string): boolean {
  const now = minutesOf(formatTime(at, timeZone).slice(11));
  const [start, end] = [minutesOf(hours.start), minutesOf(hours.end)];
  return start < end ? now >= start && now < end : now >= start || now < end;
}
