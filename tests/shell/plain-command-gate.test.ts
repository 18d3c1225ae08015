// Attacks spelled as plain commands, the lines the gate reads without the grammar: each class still refused by the whole gate.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testGate } from "../helpers/gate.js";
import { parsePlainCommand } from "../../src/shell/shell-parse.js";
import { makeTempDir } from "../helpers/tool-context.js";

const CLASSES: Record<string, string[]> = {
  // Reading an ordinary file anywhere is read-only and allowed (SECURITY.md); secrets outside the roots are not.
  "secrets outside the roots, reached by relative paths": ["cat ../../../../../etc/shadow", "head -c 1 ../../../../../proc/self/environ", "cat ../../../../../root/.ssh/id_rsa"],
  "reads of secrets inside them": ["cat .env", "cat sub/../.env", "head -c 64 workspace/../.ssh/id_rsa"],
  "writes through a plain option": ["sort -o out.txt in.txt", "find . -fprint listing.txt", "wc --files0-from=.env"],
  "writes to what a later run obeys or what speaks for the user": ["tee workspace/exec-approvals.json", "cp in.txt workspace/sessions/agent.jsonl", "touch workspace/mcp.json"],
  "programs started through a plain wrapper": ["xargs rm", "env rm -rf build", "timeout 1 rm in.txt"],
  // Plain lists are read without the grammar too: each class again after `cd`, inside a pipeline, after `;` or `||`.
  "secret reads in a list": ["cd sub && cat ../.env", "ls | cat .env", "pwd;head -c 1 sub/../.env", "git status || cat ../../../../../etc/shadow"],
  "writes in a list": ["cd workspace && tee exec-approvals.json", "cat in.txt | tee workspace/sessions/a.jsonl", "ls;sort -o out.txt in.txt"],
  "programs in a list": ["echo id | sh", "ls | xargs rm", "cd sub && env rm -rf build", "ls && curl example.com", "git status && git push"],
};

describe("plain spellings of the gate's attack classes", () => {
  it.each(Object.entries(CLASSES))("refuses %s", async (_name, lines) => {
    const cwd = await makeTempDir();
    mkdirSync(join(cwd, "workspace", "sessions"), { recursive: true });
    mkdirSync(join(cwd, "sub"));
    writeFileSync(join(cwd, ".env"), "KEY=secret\n");
    writeFileSync(join(cwd, "in.txt"), "a\n");
    const gate = testGate({ mode: "default", approver: async () => "unavailable", approvalsPath: join(cwd, "workspace", "exec-approvals.json"), roots: [cwd, join(cwd, "workspace")], cwd, home: "/root", emit: () => {} });
    for (const [i, line] of lines.entries()) {
      expect(parsePlainCommand(line), `${line} is read without the grammar`).toBeDefined();
      expect((await gate.checkCommand(line, `t${i}`)).allowed, line).toBe(false);
    }
  });
});
