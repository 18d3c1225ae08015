// Path attacks on the gate (issue 11): every case of the fixture, judged from a real project with a fake home, without and with the disk.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { testGate } from "../helpers/gate.js";
import type { PermissionMode } from "../../src/gate/context.js";
import { processSecretsReason } from "../../src/shell/process-secrets.js";
import { treeRoots } from "../../src/shell/command-reads.js";
import { assessCommand } from "../../src/shell/safety.js";
import { makeTempDir } from "../helpers/tool-context.js";
import { GIT_OBJECT_ATTACKS, layOutAttackFolders, layOutDanglingObjects, PATH_ATTACKS } from "./fixtures/attacks-paths.js";
import type { AttackFolders, PathVerdict } from "./fixtures/attacks-paths.js";

let folders: AttackFolders;
const gates = new Map<PermissionMode, ReturnType<typeof testGate>>();

beforeAll(async () => {
  folders = layOutAttackFolders(await makeTempDir("miniclaw-paths-"), "-----BEGIN OPENSSH PRIVATE KEY-----\nFAKE-KEY-FOR-TESTS\n");
  for (const mode of ["plan", "bypassPermissions"] as const) {
    const { project: cwd, home } = folders;
    const approvalsPath = join(cwd, "workspace", "exec-approvals.json");
    gates.set(mode, testGate({ mode, approver: async () => "unavailable", approvalsPath, roots: [cwd], cwd, home, emit: () => {} }));
  }
});

/** The verdict without the disk: the raw-text guard, then the parsed gate. */
async function pureVerdict(command: string): Promise<PathVerdict> {
  const where = { cwd: folders.project, home: folders.home };
  if (processSecretsReason(command, where) !== null) return "refused";
  const { verdict } = await assessCommand(command, {}, where);
  return verdict === "safe" ? "safe" : "needs_approval";
}

/** The gate's answer in plan mode (runs only what is safe) and in bypass mode (runs all but what is refused in every mode). */
async function gateVerdict(command: string): Promise<PathVerdict> {
  const plan = await gates.get("plan")?.checkCommand(command, "t");
  if (plan?.allowed === true) return plan.readOnly ? "safe" : "needs_approval";
  const bypass = await gates.get("bypassPermissions")?.checkCommand(command, "t");
  return bypass?.allowed === true ? "needs_approval" : "refused";
}

describe("path attacks, from a project with a fake home", () => {
  for (const family of [...new Set(PATH_ATTACKS.map((c) => c.family))]) {
    const cases = PATH_ATTACKS.filter((c) => c.family === family);
    it(`${family}: the pure pass${cases.some((c) => c.disk) ? " (disk cases excepted)" : ""} and the gate with the disk`, async () => {
      const pure = await Promise.all(cases.map(async (c) => [c.command, await pureVerdict(c.command)]));
      expect(pure).toEqual(cases.map((c) => [c.command, c.disk ? "safe" : c.verdict]));
      const gate: Array<[string, PathVerdict]> = [];
      for (const c of cases) gate.push([c.command, await gateVerdict(c.command)]);
      expect(gate).toEqual(cases.map((c) => [c.command, c.verdict]));
    });
  }

  it("refuses the /proc spellings in the parsed gate too, not only in the raw-text guard", async () => {
    const refused = PATH_ATTACKS.filter((c) => c.verdict === "refused");
    const verdicts = await Promise.all(refused.map(async (c) => (await assessCommand(c.command, {}, { cwd: folders.project, home: folders.home })).verdict));
    expect(verdicts.filter((v) => v === "safe")).toEqual([]);
  });

  it("counts gzip and its kin with -r as recursive readers of their operands, whatever their own rules say", () => {
    const programs = ["gzip", "gunzip", "zcat", "xz", "unxz", "xzcat", "bzip2", "bunzip2", "bzcat"];
    for (const name of ["-r", "--recursive"]) {
      const roots = programs.map((p) => treeRoots(p, { flags: [{ name, value: null }], positionals: [{ value: "d", glob: false }] }, []).map((r) => [p, r.word.value, r.kind]));
      expect(roots).toEqual(programs.map((p) => [[p, "d", "tree"]]));
    }
  });

  it("checks git objects named by id (a dangling commit, a loose blob) and a ref added after a first check", async () => {
    const { repo, ids, addRef } = layOutDanglingObjects(folders.root);
    const where = { cwd: repo, home: folders.home };
    const gate = testGate({ mode: "plan", approver: async () => "unavailable", approvalsPath: join(repo, "approvals.json"), roots: [repo], cwd: repo, home: folders.home, emit: () => {} });
    const verdict = async (command: string): Promise<PathVerdict> => {
      const answer = await gate.checkCommand(command, "t");
      return answer.allowed && answer.readOnly ? "safe" : "needs_approval";
    };
    const cases = GIT_OBJECT_ATTACKS.map((c) => ({ ...c, command: c.command.replace(/BLOB|TREE|COMMIT/g, (id) => ids[id as keyof typeof ids]) }));
    const pure = await Promise.all(cases.map(async (c) => [c.command, (await assessCommand(c.command, {}, where)).verdict]));
    expect(pure).toEqual(cases.map((c) => [c.command, "safe"]));
    const judged: Array<[string, PathVerdict]> = [];
    for (const c of cases) judged.push([c.command, await verdict(c.command)]);
    expect(judged).toEqual(cases.map((c) => [c.command, c.verdict]));
    expect(await verdict("git log -p --all")).toBe("safe");
    addRef();
    expect(await verdict("git log -p --all")).toBe("needs_approval");
  });
});
