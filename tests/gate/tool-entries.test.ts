// Tool names and globs in exec-approvals.json: kept for tools that are not commands, never approving a command, broad globs ignored.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isToolEntry, matchesToolName } from "../../src/gate/approval-entries.js";
import { approvalsReader } from "../../src/gate/approval-entries.js";
import { checkCommandSafety } from "../../src/shell/safety.js";
import { makeTempDir } from "../helpers/tool-context.js";

describe("tool entries of the approvals file", () => {
  it("keeps tool names and globs without a warning, and still leaves out and warns about broad command entries", async () => {
    const path = join(await makeTempDir(), "exec-approvals.json");
    writeFileSync(path, JSON.stringify({ allowed: ["mcp__github__*", "deploy", "*", "*_file", "rm *"], denied: [] }));
    const warnings: string[] = [];
    expect(approvalsReader(path, (m) => warnings.push(m))()).toEqual({ allowed: ["mcp__github__*", "deploy"], denied: [] });
    expect(warnings.map((w) => /the allowed entry "(.*)" is ignored/.exec(w)?.[1])).toEqual(["*", "*_file", "rm *"]);
  });

  it("never approves a command through a tool glob, whose program would be a wildcard", async () => {
    const allowed = ["mcp__github__*", "r?"];
    const verdicts = await Promise.all(["mcp__github__*", "mcp__github__x", "r?", "rm x"].map((c) => checkCommandSafety(c, { allowed })));
    expect(verdicts).toEqual(["needs_approval", "needs_approval", "needs_approval", "needs_approval"]);
  });

  it("matches names exactly or by glob; an allowed glob that starts with a wildcard matches nothing, a denied one everything", () => {
    expect(isToolEntry("mcp__github__*")).toBe(true);
    expect(isToolEntry("*")).toBe(false);
    expect(isToolEntry("npm test")).toBe(false);
    expect(matchesToolName("mcp__github__create_issue", ["mcp__github__*"], true)).toBe(true);
    expect(matchesToolName("mcp__gitlab__create_issue", ["mcp__github__*"], true)).toBe(false);
    expect(matchesToolName("deploy", ["deploy"], true)).toBe(true);
    expect(matchesToolName("deploy2", ["deploy", "deploy?x"], true)).toBe(false);
    expect(matchesToolName("deploy", ["*", "*oy", "npm *"], true)).toBe(false);
    expect(matchesToolName("deploy", ["*"], false)).toBe(true);
    expect(matchesToolName("deploy", ["rm *"], false)).toBe(false);
  });
});
