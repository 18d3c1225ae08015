// The whole-text reading of a session's load region: the oracle the tail reader (src/sessions/session-file.ts) is checked against.
import { type SessionRecord, parseRecordLine } from "../../src/sessions/records.js";
import { COMPACTION_MARK, formatWarnings, keptMissing, parseHeader, parseRegion, type LoadRegion, type RegionWarning } from "../../src/sessions/session-file.js";

/**
 * Reads what loading needs from a whole file's text: the header (line 1), the
 * last compaction (searched for from the end), its first kept message (searched
 * for back from there), and the lines from that message on. Lines before the
 * region are not parsed, so their damage is not reported: they are not used.
 * When the first kept message cannot be found, the region starts after the
 * compaction line and a warning says so.
 */
export function readLoadRegion(text: string, file: string): LoadRegion {
  const headerEnd = lineEnd(text, 0);
  const header = parseHeader(text.slice(0, headerEnd));
  const found = findLastLine(text, COMPACTION_MARK, text.length, (record) => (record.type === "compaction" ? record : undefined));
  const kept = found && findLastLine(text, JSON.stringify(found.record.firstKeptId), found.start, (r) => (r.type === "message" && r.id === found.record.firstKeptId ? r : undefined));
  const start = kept?.start ?? (found ? lineEnd(text, found.start) + 1 : header ? headerEnd + 1 : 0);
  const region = parseRegion(text.slice(start), { header, compaction: found?.record });
  const extra: RegionWarning[] = [];
  if (found && !kept) extra.push(keptMissing(found.record));
  const base = region.warnings.length + extra.length > 0 ? countNewlines(text, start) : 0;
  const warnings = [...(header === undefined && start > 0 ? [`${file}:1: no readable session header`] : []), ...formatWarnings([...extra, ...region.warnings], base, file)];
  return { ...region, warnings };
}

/** Number of newlines in `text` before `end`. */
function countNewlines(text: string, end: number): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at >= 0 && at < end; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

/** The last line before `before` containing `needle` whose record `accept` takes; unparseable candidates are passed over silently. */
function findLastLine<T>(text: string, needle: string, before: number, accept: (record: SessionRecord) => T | undefined): { start: number; record: T } | undefined {
  if (before < needle.length) return undefined;
  for (let at = text.lastIndexOf(needle, before - needle.length); at >= 0; ) {
    const start = at === 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1;
    const parsed = parseRecordLine(text.slice(start, lineEnd(text, at)));
    const record = parsed.ok ? accept(parsed.record) : undefined;
    if (record !== undefined) return { start, record };
    if (start === 0) break;
    at = text.lastIndexOf(needle, start - 1);
  }
  return undefined;
}

function lineEnd(text: string, at: number): number {
  const end = text.indexOf("\n", at);
  return end < 0 ? text.length : end;
}
