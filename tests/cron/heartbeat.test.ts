import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TEMPLATE_WORKSPACE } from "../../src/paths.js";
import { buildHeartbeatPrompt, hasHeartbeatContent, interpretHeartbeatReply, isWithinActiveHours } from "../../src/cron/index.js";

describe("hasHeartbeatContent", () => {
  it.each([
    ["an empty file", ""],
    ["headings and blank lines", "# Heartbeat\n\n## Daily\n\n"],
    ["an HTML comment over several lines", "# H\n<!--\n- check the disk\n-->\n"],
    ["an unclosed comment", "# H\n<!-- - check the disk\n"],
    ["empty list items and checkboxes", "# H\n- \n* [ ]\n1.\n+ [x]\n"],
    ["a horizontal rule", "# H\n---\n"],
  ])("is false for %s", (_what, text) => {
    expect(hasHeartbeatContent(text)).toBe(false);
  });

  it.each([
    ["a list item", "# H\n- check the disk\n"],
    ["a plain line", "Look at the inbox."],
    ["an item after a comment on the same line", "<!-- note --> - check the disk"],
    ["a checkbox with text", "- [ ] water the plants"],
  ])("is true for %s", (_what, text) => {
    expect(hasHeartbeatContent(text)).toBe(true);
  });

  it("is false for the shipped HEARTBEAT.md template, so a fresh workspace makes no calls", () => {
    const shipped = readFileSync(join(TEMPLATE_WORKSPACE, "HEARTBEAT.md"), "utf8");
    expect(hasHeartbeatContent(shipped)).toBe(false);
  });
});

describe("buildHeartbeatPrompt", () => {
  it("shows the checklist without its comments, with the job's own prompt", () => {
    const prompt = buildHeartbeatPrompt("# H\n<!-- secret example -->\n- check the disk\n", "Be brief.");
    expect(prompt).toMatch(/HEARTBEAT_OK/);
    expect(prompt).toMatch(/Be brief\./);
    expect(prompt).toMatch(/<checklist>\n# H\n\n- check the disk\n<\/checklist>$/);
    expect(prompt).not.toMatch(/secret example/);
  });
});

describe("interpretHeartbeatReply", () => {
  it.each([
    ["HEARTBEAT_OK", ""],
    ["  HEARTBEAT_OK\n", ""],
    ["**HEARTBEAT_OK**", ""],
    ["`HEARTBEAT_OK`.", ""],
    ["HEARTBEAT_OK all quiet today", "all quiet today"],
    ["All quiet today. HEARTBEAT_OK", "All quiet today."],
  ])("reads %j as an acknowledgement", (reply, text) => {
    expect(interpretHeartbeatReply(reply)).toEqual({ ok: true, text });
  });

  it("treats a reply without the token as an alert, unchanged", () => {
    expect(interpretHeartbeatReply(" The disk is 95% full. ")).toEqual({ ok: false, text: "The disk is 95% full." });
  });

  it("treats a long reply as an alert even with the token, and still strips it", () => {
    const long = "x".repeat(301);
    expect(interpretHeartbeatReply(`HEARTBEAT_OK ${long}`)).toEqual({ ok: false, text: long });
    expect(interpretHeartbeatReply(`HEARTBEAT_OK ${"x".repeat(300)}`).ok).toBe(true);
  });

  it("does not take a longer word for the token", () => {
    expect(interpretHeartbeatReply("HEARTBEAT_OKAY")).toEqual({ ok: false, text: "HEARTBEAT_OKAY" });
  });
});

describe("isWithinActiveHours", () => {
  const at = (iso: string): number => Date.parse(iso);
  const day = { start: "08:00", end: "22:00" };

  it("includes the start and excludes the end", () => {
    expect(isWithinActiveHours(at("2026-11-29T08:00:00Z"), day, "UTC")).toBe(true);
    expect(isWithinActiveHours(at("2026-11-29T21:59:00Z"), day, "UTC")).toBe(true);
    expect(isWithinActiveHours(at("2026-11-29T22:00:00Z"), day, "UTC")).toBe(false);
    expect(isWithinActiveHours(at("2026-11-29T07:59:00Z"), day, "UTC")).toBe(false);
  });

  it("reads the time in the job's time zone", () => {
    // 07:30 UTC is 08:30 in Paris (winter) and 02:30 in New York.
    expect(isWithinActiveHours(at("2026-11-29T07:30:00Z"), day, "Europe/Paris")).toBe(true);
    expect(isWithinActiveHours(at("2026-11-29T07:30:00Z"), day, "America/New_York")).toBe(false);
  });

  it("wraps past midnight when the end comes before the start", () => {
    const night = { start: "22:00", end: "06:00" };
    expect(isWithinActiveHours(at("2026-11-29T23:00:00Z"), night, "UTC")).toBe(true);
    expect(isWithinActiveHours(at("2026-11-29T05:59:00Z"), night, "UTC")).toBe(true);
    expect(isWithinActiveHours(at("2026-11-29T12:00:00Z"), night, "UTC")).toBe(false);
  });
});
