// The gate resolves its roots, the approvals file and the sessions folder once, at the first check that needs
// them: reached under another name (a link to the workspace, a link to home, a dangling link), each still holds.
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testGate } from "../helpers/gate.js";
import { tempDirSync } from "../helpers/temp-dir.js";

/** A home with a key, a project in it with its workspace, and links to each under other names. */
function layout() {
  const home = realpathSync(tempDirSync("miniclaw-gate-aliases-"));
  const project = join(home, "project");
  const workspace = join(project, "workspace");
  mkdirSync(join(home, ".ssh"), { recursive: true });
  mkdirSync(join(workspace, "sessions"), { recursive: true });
  mkdirSync(join(home, "elsewhere"));
  mkdirSync(join(project, "sub"));
  writeFileSync(join(home, ".ssh", "id_rsa"), "KEY");
  writeFileSync(join(project, "notes.txt"), "notes");
  symlinkSync(project, join(home, "project-alias"));
  symlinkSync(home, join(project, "h"));
  symlinkSync(join(workspace, "sessions"), join(project, "s"));
  symlinkSync(join(home, "elsewhere", "new.txt"), join(project, "dangling"));
  symlinkSync(join(home, ".ssh", "id_rsa"), join(project, "innocent.txt"));
  symlinkSync(workspace, join(project, "sub", "ws-link"));
  return { home, project, workspace };
}

function gate(cwd: string, home: string, workspace: string) {
  const asked: string[] = [];
  const context = testGate({
    mode: "default",
    approver: async (request) => (asked.push(request.command), "deny_once"),
    approvalsPath: join(workspace, "exec-approvals.json"),
    roots: [cwd, workspace],
    protectedDirs: [join(workspace, "sessions")],
    cwd,
    home,
    emit: () => {},
  });
  return { context, asked };
}

describe("the gate's paths reached under other names", () => {
  it("asks before a file tool writes the approvals file, the sessions folder or outside the roots through a link", async () => {
    const { home, project, workspace } = layout();
    const { context, asked } = gate(join(home, "project-alias"), home, workspace);
    expect(await context.checkPath("notes.txt", "read", "t")).toMatchObject({ allowed: true, path: join(project, "notes.txt") });
    for (const path of ["workspace/exec-approvals.json", "s/agent#main#x.jsonl", "dangling", "h/.ssh/id_rsa", "innocent.txt"]) {
      const access = path === "h/.ssh/id_rsa" || path === "innocent.txt" ? "read" : "write";
      expect((await context.checkPath(path, access, "t")).allowed, path).toBe(false);
    }
    expect(asked).toHaveLength(5);
  });

  it("asks before a command reads the key from a working folder reached through a link, after cd, by glob, brace or pipe", async () => {
    const { home, workspace } = layout();
    const commands = ["cd h && cat .ssh/id_rsa", "cd .. && cat .ssh/id_rsa", "cat ../.ss?/id_*", "cat {notes.txt,h/.ssh/id_rsa}", "echo x | grep -r KEY ../.ssh", "cat innocent.txt"];
    for (const command of commands) {
      const { context } = gate(join(home, "project-alias"), home, workspace);
      expect((await context.checkCommand(command, "t")).allowed, command).toBe(false);
    }
    expect((await gate(join(home, "project-alias"), home, workspace).context.checkCommand("cat notes.txt", "t")).allowed).toBe(true);
  });

  it("asks as well when the same paths are spelled with .., ./, an absolute path, a second link or a command substitution", async () => {
    const { home, workspace } = layout();
    const paths: Array<[string, "read" | "write"]> = [
      ["workspace/../workspace/exec-approvals.json", "write"], ["./s/../s/agent#main#x.jsonl", "write"], ["h/project-alias/workspace/exec-approvals.json", "write"],
      ["sub/ws-link/exec-approvals.json", "write"], ["sub/ws-link/sessions/a.jsonl", "write"], ["sub/../h/./.ssh/id_rsa", "read"], [join(home, "project-alias", "..", ".ssh", "id_rsa"), "read"],
    ];
    for (const [path, access] of paths) expect((await gate(join(home, "project-alias"), home, workspace).context.checkPath(path, access, "t")).allowed, path).toBe(false);
    const commands = ["cd sub && cat ../h/.ssh/id_rsa", "cd sub/ws-link/.. && cat ../h/.ssh/id_rsa", "cat $(echo h)/.ssh/id_rsa", "tac h/.ssh/id*", "head -c 3 ./h/./.ssh/id_rsa", "cat notes.txt | cat - h/.ssh/id_rsa", "cd h; cat .ssh/id_rsa"];
    for (const command of commands) expect((await gate(join(home, "project-alias"), home, workspace).context.checkCommand(command, "t")).allowed, command).toBe(false);
  });
});
