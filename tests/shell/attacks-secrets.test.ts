// Secrets beyond the list of names (the repository's config, copies, credential files, system folders, content), judged without and with the disk.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { testGate } from "../helpers/gate.js";

import { diskReasons } from "../../src/shell/disk-check.js";
import { processSecretsReason } from "../../src/shell/process-secrets.js";
import { assessCommand } from "../../src/shell/safety.js";
import { makeTempDir } from "../helpers/tool-context.js";
import { randomText, seeded } from "../gate/fixtures/redact-corpus.js";
import type { PathVerdict } from "./fixtures/attacks-paths.js";
import { layOutSecretFolders, SECRET_ATTACKS } from "./fixtures/attacks-secrets.js";
import type { SecretAttack, SecretFolders } from "./fixtures/attacks-secrets.js";

const random = seeded(42);
const TOKEN = `ghp_${randomText(random, 36)}`;
const PASSWORD = `Pw7${randomText(random, 14)}`;
const KEY_BODY = Array.from({ length: 4 }, () => randomText(random, 64, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")).join("\n");

let folders: SecretFolders;
const gates = new Map<string, ReturnType<typeof testGate>>();

beforeAll(async () => {
  folders = layOutSecretFolders(await makeTempDir("miniclaw-secrets-"), TOKEN, PASSWORD, KEY_BODY);
}, 30_000);

function dirOf(c: SecretAttack): string {
  return folders[c.where ?? "project"];
}

/** A plan-mode gate (runs only what is safe) from `cwd`, with the fake home. */
function gateAt(cwd: string, home = folders.home): ReturnType<typeof testGate> {
  const key = `${cwd}\0${home}`;
  let gate = gates.get(key);
  if (gate === undefined) {
    gate = testGate({ mode: "plan", approver: async () => "unavailable", approvalsPath: join(folders.root, "approvals.json"), roots: [cwd], cwd, home, emit: () => {} });
    gates.set(key, gate);
  }
  return gate;
}

async function pureVerdict(c: SecretAttack): Promise<PathVerdict> {
  const where = { cwd: dirOf(c), home: folders.home };
  if (processSecretsReason(c.command, where) !== null) return "refused";
  return (await assessCommand(c.command, {}, where)).verdict === "safe" ? "safe" : "needs_approval";
}

async function gateVerdict(c: SecretAttack): Promise<PathVerdict> {
  const answer = await gateAt(dirOf(c)).checkCommand(c.command, "t");
  return answer.allowed && answer.readOnly ? "safe" : "needs_approval";
}

describe("secrets beyond the list of names, from a repository cloned with a token", () => {
  for (const family of [...new Set(SECRET_ATTACKS.map((c) => c.family))]) {
    it(`${family}: the pure pass and the gate with the disk`, async () => {
      const cases = SECRET_ATTACKS.filter((c) => c.family === family);
      const pure: Array<[string, PathVerdict]> = [];
      const gate: Array<[string, PathVerdict]> = [];
      for (const c of cases) {
        pure.push([`${c.where ?? "project"}: ${c.command}`, await pureVerdict(c)]);
        gate.push([`${c.where ?? "project"}: ${c.command}`, await gateVerdict(c)]);
      }
      expect(pure).toEqual(cases.map((c) => [`${c.where ?? "project"}: ${c.command}`, c.disk ? "safe" : c.verdict]));
      expect(gate).toEqual(cases.map((c) => [`${c.where ?? "project"}: ${c.command}`, c.verdict]));
    });
  }

  it("says why in words that name the file and the kind of secret, never the secret itself", async () => {
    const where = { cwd: folders.project, home: folders.home };
    const reasons: string[] = [];
    for (const command of ["cat notes.txt", "git remote -v", "grep -r foo data", "cat docs/setup.md", "head -5 backup/settings.ini"]) {
      const { plan } = await assessCommand(command, {}, where);
      reasons.push(...(await diskReasons(plan ?? { reads: [], gitContentDirs: [], gitObjects: [] }, where)));
    }
    expect(reasons).toEqual([
      `cat reads ${join(folders.project, "notes.txt")}, and its content holds what looks like a GitHub token`,
      `git remote prints the remote URLs, and ${join(folders.project, ".git", "config")} holds a URL with credentials`,
      `grep reads every file under ${join(folders.project, "data")}, and ${join(folders.project, "data", "dump.txt")}: its content holds what looks like a URL with credentials`,
      `cat reads ${join(folders.project, "docs", "setup.md")}, and its content holds what looks like a private key`,
      `head reads ${join(folders.project, "backup", "settings.ini")}, and its content holds what looks like a password assignment`,
    ]);
    expect(reasons.join("\n")).not.toContain(TOKEN);
    expect(reasons.join("\n")).not.toContain(PASSWORD);
  });

  it("asks for git remote where the user's configuration rewrites remote URLs to carry a token, and not where nothing does", async () => {
    const home = join(folders.root, "ci-home");
    mkdirSync(home);
    writeFileSync(join(home, ".gitconfig"), `[url "https://x-access-token:${TOKEN}@github.com/"]\n\tinsteadOf = https://github.com/\n`);
    expect((await gateAt(folders.clean, home).checkCommand("git remote -v", "t")).allowed).toBe(false);
    expect(await gateAt(folders.clean).checkCommand("git remote -v", "t")).toEqual({ allowed: true, readOnly: true });
  });
});
