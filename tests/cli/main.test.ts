import { describe, expect, it } from "vitest";
import { describeFailure } from "../../src/cli/main.js";
import { ConfigError, MiniclawError, SessionError, ToolError } from "../../src/errors.js";

describe("what the CLI prints for an error that ended a command", () => {
  it.each([
    ["a ConfigError", new ConfigError("cron.json: job \"x\": schedule: is required")],
    ["a SessionError", new SessionError("cannot append to sessions/agent:main:main.jsonl: disk full")],
    ["any miniclaw error a person must fix", new MiniclawError('cannot save memory "notes": EACCES: permission denied')],
  ])("prints %s alone: a person fixes it from the message", (_what, error) => {
    expect(describeFailure(error, false)).toBe(`${error.message}\n`);
    expect(describeFailure(error, true)).toBe(`${error.message}\n`);
  });

  it.each([
    ["a ToolError that escaped the loop", new ToolError("no such file: notes.txt")],
    ["a TypeError", new TypeError("cannot read properties of undefined")],
  ])("prints %s as an unexpected error, the stack only when debugging", (_what, error) => {
    expect(describeFailure(error, false)).toBe(`miniclaw: unexpected error: ${error.message}\n`);
    const debug = describeFailure(error, true);
    expect(debug.startsWith(`miniclaw: unexpected error: ${error.message}\n${error.name}: ${error.message}\n    at `)).toBe(true);
  });

  it("escapes what a message quotes, keeping its line breaks", () => {
    expect(describeFailure(new ConfigError('job "a\u001b[2J":\nbad'), false)).toBe('job "a\\x1b[2J":\nbad\n');
    expect(describeFailure("thrown \u202etext", false)).toBe("miniclaw: unexpected error: thrown \\u202etext\n");
  });
});
