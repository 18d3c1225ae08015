// The permission context: modes, the approver and its "always" answers, the approvals file, roots, symlinks and sensitive paths.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { Approver } from "../../src/deps.js";
import { testGate } from "../helpers/gate.js";
import type { PermissionMode } from "../../src/gate/context.js";
import type { AgentEvent, ApprovalDecision } from "../../src/types.js";
import { makeTempDir } from "../helpers/tool-context.js";

async function setup(mode: PermissionMode, answers: ApprovalDecision[] = [], approvals?: object | string, home?: string) {
  const cwd = await makeTempDir();
  const workspace = join(cwd, "workspace");
  mkdirSync(workspace);
  const approvalsPath = join(workspace, "exec-approvals.json");
  if (approvals !== undefined) writeFileSync(approvalsPath, typeof approvals === "string" ? approvals : JSON.stringify(approvals));
  const events: AgentEvent[] = [];
  const warnings: string[] = [];
  const approver = vi.fn<Approver>(async () => answers.shift() ?? "unavailable");
  const gate = testGate({ mode, approver, approvalsPath, roots: [cwd, workspace], cwd, ...(home ? { home } : {}), emit: (e) => events.push(e), onWarning: (m) => warnings.push(m) });
  const saved = (): unknown => JSON.parse(readFileSync(approvalsPath, "utf8"));
  return { cwd, workspace, approvalsPath, events, warnings, approver, gate, saved };
}

describe("checkCommand in default mode", () => {
  it("runs safe and approved commands without asking", async () => {
    const t = await setup("default", [], { allowed: ["npm test"], denied: [] });
    expect(await t.gate.checkCommand("git status | head", "t1")).toEqual({ allowed: true, readOnly: true });
    expect(await t.gate.checkCommand("npm test", "t2")).toEqual({ allowed: true, readOnly: false });
    expect(t.approver).not.toHaveBeenCalled();
    expect(t.events).toEqual([]);
  });

  it("refuses a denied command without asking and tells the model the user denied it", async () => {
    const t = await setup("default", [], { allowed: [], denied: ["ls"] });
    const answer = await t.gate.checkCommand("ls", "t1");
    expect(answer.allowed).toBe(false);
    expect(!answer.allowed && answer.reason).toMatch(/^The user denied this command/);
    expect(t.approver).not.toHaveBeenCalled();
    expect(t.events.map((e) => e.type === "approval" && e.decision)).toEqual(["denied"]);
  });

  it("asks about the rest and persists allow_always and deny_always", async () => {
    const t = await setup("default", ["allow_always", "deny_always"]);
    expect(await t.gate.checkCommand("npm run build", "t1")).toEqual({ allowed: true, readOnly: false });
    expect(t.approver).toHaveBeenCalledWith({
      tool: "run_command",
      command: "npm run build",
      reason: "npm runs code (an interpreter or build tool)",
      alwaysSaves: "npm run build",
    });
    expect((await t.gate.checkCommand("rm -rf dist", "t2")).allowed).toBe(false);
    expect(t.saved()).toEqual({ allowed: ["npm run build"], denied: ["rm -rf dist"] });
    expect(await t.gate.checkCommand("npm run build", "t3")).toEqual({ allowed: true, readOnly: false });
    const again = await t.gate.checkCommand("rm -rf dist", "t4");
    expect(!again.allowed && again.reason).toMatch(/^The user denied this command/);
    expect(t.approver).toHaveBeenCalledTimes(2);
    expect(t.events.map((e) => (e.type === "approval" ? [e.id, e.decision] : e.type))).toEqual([
      ["t1", "allow_always"],
      ["t2", "deny_always"],
      ["t4", "denied"],
    ]);
  });

  it("says what always saves; a command too broad for the file is allowed for the session and not saved", async () => {
    const t = await setup("default", ["allow_always"]);
    expect(await t.gate.checkCommand("  rm -rf *  ", "t1")).toEqual({ allowed: true, readOnly: false });
    expect(t.approver).toHaveBeenCalledWith(expect.not.objectContaining({ alwaysSaves: expect.anything() }));
    expect(await t.gate.checkCommand("rm -rf *", "t2")).toEqual({ allowed: true, readOnly: false });
    expect(t.approver).toHaveBeenCalledTimes(1);
    expect(existsSync(t.approvalsPath)).toBe(false);
  });

  it("refuses once on deny_once, and when nobody can answer says not to retry", async () => {
    const t = await setup("default", ["deny_once", "unavailable"]);
    const denied = await t.gate.checkCommand("touch x", "t1");
    expect(!denied.allowed && denied.reason).toBe("The user denied this command (`touch x`). Do not retry it; choose another approach or ask the user what they want.");
    const unavailable = await t.gate.checkCommand("touch x", "t2");
    expect(!unavailable.allowed && unavailable.reason).toBe(
      "Not run: `touch x` needs the user's approval (touch writes, moves or deletes files), and nobody is here to give it in this non-interactive run. " +
        "Do not retry it or try variations of it. Finish without it and say in your reply exactly which command you wanted to run and why, so the user can run or approve it.",
    );
  });

  it("with a corrupt approvals file: warns once, approves nothing, and leaves the file as it was", async () => {
    const corrupt = '{"allowed": ["touch x"]';
    const t = await setup("default", ["allow_always", "allow_once"], corrupt);
    expect(await t.gate.checkCommand("touch x", "t1")).toEqual({ allowed: true, readOnly: false });
    expect(await t.gate.checkCommand("touch x", "t2")).toEqual({ allowed: true, readOnly: false });
    expect(t.approver).toHaveBeenCalledTimes(2);
    expect(readFileSync(t.approvalsPath, "utf8")).toBe(corrupt);
    expect(t.warnings.map((w) => w.slice(t.approvalsPath.length))).toEqual([
      expect.stringMatching(/^: is not valid JSON .*The file was left as it is; until it is fixed no command is approved or denied by it\.$/),
      expect.stringMatching(/^: is not valid JSON .*The decision was not saved and the file was left as it is\.$/),
    ]);
  });
});

describe("checkCommand with something else than a file where the approvals file goes", () => {
  const cases: Array<[string, (path: string) => void, RegExp]> = [
    ["a directory", (path) => mkdirSync(path), /^: cannot be read \(it is not a regular file\)/],
    ["a link to itself", (path) => symlinkSync("exec-approvals.json", path), /^: cannot be read \(ELOOP/],
    ["a link to /dev/zero", (path) => symlinkSync("/dev/zero", path), /^: cannot be read \(it is not a regular file\)/],
  ];
  it.each(cases)("with %s: warns, approves nothing, asks, and does not block", async (_what, arrange, problem) => {
    const t = await setup("default", ["allow_once"]);
    arrange(t.approvalsPath);
    expect(await t.gate.checkCommand("npm test", "t1")).toEqual({ allowed: true, readOnly: false });
    expect(t.approver).toHaveBeenCalledTimes(1);
    expect(t.warnings.map((w) => w.slice(t.approvalsPath.length))).toEqual([expect.stringMatching(problem)]);
  });
});

describe("checkCommand in other modes", () => {
  it("plan runs only safe commands and never asks", async () => {
    const t = await setup("plan", ["allow_once"], { allowed: ["touch x"], denied: [] });
    expect(await t.gate.checkCommand("ls -la", "t1")).toEqual({ allowed: true, readOnly: true });
    const refused = await t.gate.checkCommand("touch x", "t2");
    expect(!refused.allowed && refused.reason).toBe(
      "Plan mode is read-only: only commands the gate can prove read-only run, and `touch x` is not (touch writes, moves or deletes files). Describe the change in your plan instead of running it.",
    );
    expect(t.approver).not.toHaveBeenCalled();
  });

  it("bypassPermissions runs everything except the denied", async () => {
    const t = await setup("bypassPermissions", [], { allowed: [], denied: ["git push *"] });
    expect(await t.gate.checkCommand("rm -rf build && npm publish", "t1")).toEqual({ allowed: true, readOnly: false });
    expect((await t.gate.checkCommand("git push --force", "t2")).allowed).toBe(false);
    expect(t.approver).not.toHaveBeenCalled();
  });
});

describe("checkCommand looks at the disk after a safe verdict", () => {
  /** A home folder with a key, and a project whose notes.txt is a link to it. */
  async function withLinkedKey(mode: PermissionMode, approvals?: object) {
    const home = await makeTempDir();
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".ssh", "id_rsa"), "KEY");
    writeFileSync(join(home, ".bash_aliases"), "alias x=y\n");
    const t = await setup(mode, ["deny_once"], approvals, home);
    symlinkSync(join(home, ".ssh", "id_rsa"), join(t.cwd, "notes.txt"));
    writeFileSync(join(t.cwd, "plain.txt"), "hello\n");
    return { ...t, home };
  }

  it("asks about a read whose real path is a secret, saying which, and runs the same read of a plain file unasked", async () => {
    const t = await withLinkedKey("default");
    expect(await t.gate.checkCommand("cat plain.txt", "t1")).toEqual({ allowed: true, readOnly: true });
    expect((await t.gate.checkCommand("cat notes.txt", "t2")).allowed).toBe(false);
    expect(t.approver.mock.calls.map(([request]) => request.reason)).toEqual([
      `cat reads ${join(t.cwd, "notes.txt")} (really ${join(t.home, ".ssh", "id_rsa")}), and reads inside .ssh/, which holds secrets`,
    ]);
  });

  it("keeps the approvals list: an allowed entry then runs, but not as a read-only command; plan mode refuses", async () => {
    const allowed = await withLinkedKey("default", { allowed: ["cat notes.txt"], denied: [] });
    expect(await allowed.gate.checkCommand("cat notes.txt", "t1")).toEqual({ allowed: true, readOnly: false });
    expect(allowed.approver).not.toHaveBeenCalled();
    const plan = await withLinkedKey("plan");
    symlinkSync(join(plan.home, ".ssh", "id_rsa"), join(plan.cwd, "-n"));
    for (const command of ["cat ./*.txt", "cat -- -n", "cat < notes.txt", "cd .. && cat */notes.txt"]) expect((await plan.gate.checkCommand(command, "t1")).allowed).toBe(false);
    expect(await plan.gate.checkCommand("cat ./p*.txt", "t2")).toEqual({ allowed: true, readOnly: true });
  });

  it("checks a repository's history for secrets without running what its config names", async () => {
    const t = await withLinkedKey("plan");
    const git = (...args: string[]): void => void execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd: t.cwd, stdio: "ignore" });
    git("init", "-q");
    git("add", "plain.txt");
    git("commit", "-q", "-m", "plain");
    git("config", "core.fsmonitor", `touch ${join(t.cwd, "PWNED")}; false`);
    expect(await t.gate.checkCommand("git show HEAD", "t1")).toEqual({ allowed: true, readOnly: true });
    git("config", "--unset", "core.fsmonitor");
    writeFileSync(join(t.cwd, ".env"), "K=1\n");
    git("add", ".env");
    git("config", "core.fsmonitor", `touch ${join(t.cwd, "PWNED")}; false`);
    expect((await t.gate.checkCommand("git diff --cached", "t2")).allowed).toBe(false);
    expect(existsSync(join(t.cwd, "PWNED"))).toBe(false);
  });

  it("resolves ~ and cd against the home it was given", async () => {
    const t = await withLinkedKey("plan");
    for (const command of ["cd ~ && cat .bash_aliases", "cat ~/.bash_aliases", "grep -r alias ~"]) expect((await t.gate.checkCommand(command, "t")).allowed).toBe(false);
    expect(await t.gate.checkCommand("ls ~", "t")).toEqual({ allowed: true, readOnly: true });
  });
});

describe("checkPath", () => {
  it("allows paths inside the roots, resolving .. and returning the real path", async () => {
    const t = await setup("default");
    mkdirSync(join(t.cwd, "src"));
    expect(await t.gate.checkPath("src/../a.txt", "write", "t1")).toEqual({ allowed: true, path: join(t.cwd, "a.txt") });
    expect(await t.gate.checkPath(join(t.workspace, "memory/x.md"), "write", "t2")).toEqual({ allowed: true, path: join(t.workspace, "memory/x.md") });
    expect(t.approver).not.toHaveBeenCalled();
  });

  it("treats a symlink inside a root that points outside as outside, for existing and new files", async () => {
    const outside = await makeTempDir();
    const t = await setup("default", ["deny_once", "deny_once", "deny_once"]);
    symlinkSync(outside, join(t.cwd, "link"));
    symlinkSync(join(outside, "not-yet.txt"), join(t.cwd, "dangling"));
    expect((await t.gate.checkPath("link/new.txt", "write", "t1")).allowed).toBe(false);
    expect((await t.gate.checkPath("dangling", "write", "t2")).allowed).toBe(false);
    expect((await t.gate.checkPath("../elsewhere.txt", "read", "t3")).allowed).toBe(false);
    expect(t.approver.mock.calls.map(([request]) => [request.tool, request.command])).toEqual([
      ["write_file", `write ${join(outside, "new.txt")}`],
      ["write_file", `write ${join(outside, "not-yet.txt")}`],
      ["read_file", `read ${join(t.cwd, "..", "elsewhere.txt")}`],
    ]);
  });

  it("asks before secrets, .git internals and the approvals file, even inside the roots", async () => {
    const t = await setup("default");
    for (const [path, access] of [[".env", "read"], [".git/config", "write"], ["workspace/exec-approvals.json", "write"]] as const) {
      const answer = await t.gate.checkPath(path, access, "t");
      expect(!answer.allowed && answer.reason).toMatch(/^Not allowed: .* needs the user's approval/);
    }
    expect(t.approver.mock.calls.map(([request]) => request.reason)).toEqual([
      `reads ${join(t.cwd, ".env")}, which may hold secrets`,
      "writes inside a .git folder, whose hooks and config can run programs",
      "writes the approvals file, which decides what runs unasked",
    ]);
  });

  it("remembers allow_always for a path during the session; bypass allows outside; plan refuses writes", async () => {
    const outside = await makeTempDir();
    const t = await setup("default", ["allow_always"]);
    expect((await t.gate.checkPath(join(outside, "f"), "write", "t1")).allowed).toBe(true);
    expect((await t.gate.checkPath(join(outside, "f"), "write", "t2")).allowed).toBe(true);
    expect(t.approver).toHaveBeenCalledTimes(1);
    expect((await (await setup("bypassPermissions")).gate.checkPath(join(outside, "g"), "write", "t")).allowed).toBe(true);
    const plan = await setup("plan");
    expect((await plan.gate.checkPath("inside.txt", "write", "t")).allowed).toBe(false);
    expect((await plan.gate.checkPath("inside.txt", "read", "t")).allowed).toBe(true);
  });
});
