// The four classes of the last gate review, through the real command line in default, plan and auto: credentials in a
// repository's config, credential files the list of names missed, capabilities the model grants itself, a planted cron.json.
import { execFileSync } from "node:child_process";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModel, type RecordedRequest, type ScriptedModel } from "../../src/testing/index.js";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

let model: ScriptedModel | undefined;
afterEach(async () => {
  expect(model?.rejected ?? []).toEqual([]);
  await model?.close();
  model = undefined;
});

/** A GitHub token and a basic header built at run time, so no file of this repository holds one. */
const TOKEN = ["ghp", "Zq8mVt3LwN6pXr1sKd5HfJ2aYc9EuB4gTo7i"].join("_");
const HEADER = Buffer.from(`x-access-token:${TOKEN}`).toString("base64");
const KEY_HEAD = ["-----BEGIN OPENSSH", "PRIVATE KEY-----"].join(" ");

/** A project cloned with a token, with credential files under names no list had. */
async function project(): Promise<string> {
  const dir = await tempDir("miniclaw-classes-");
  execFileSync("git", ["init", "-q", dir]);
  execFileSync("git", ["-C", dir, "remote", "add", "origin", `https://x-access-token:${TOKEN}@github.com/o/r.git`]);
  execFileSync("git", ["-C", dir, "config", "http.https://github.com/.extraheader", `AUTHORIZATION: basic ${HEADER}`]);
  const files: Record<string, string> = {
    ".env~": `API_TOKEN=${TOKEN}\n`,
    "id_ed25519.bak": `${KEY_HEAD}\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n`,
    "terraform.tfstate": `{"outputs": {"token": {"value": "${TOKEN}"}}}\n`,
    ".my.cnf": `[client]\npassword=${TOKEN}\n`,
    "kubeconfig": `users:\n- name: u\n  user:\n    token: ${TOKEN}\n`,
    "secrets.yaml": `github_token: ${TOKEN}\n`,
    "notes.txt": `the deploy token is ${TOKEN}\n`,
  };
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

/** Reads of the repository's config and of the files above, by command and by read_file. */
const COMMANDS = [
  "git remote -v", "cat .git/config", "grep url .git/config", "grep -r url .git", "diff .git/config notes.txt", "cat .env~", "cat id_ed25519.bak",
  "cat terraform.tfstate", "cat .my.cnf", "cat kubeconfig", "cat secrets.yaml", "cat notes.txt", "cat /run/secrets/db 2>/dev/null; true",
];
const READS = [".git/config", ".env~", "id_ed25519.bak", "terraform.tfstate", ".my.cnf", "kubeconfig", "secrets.yaml"];

/** Every tool result the model was sent, as text. */
function resultsText(requests: readonly RecordedRequest[]): string {
  return JSON.stringify(requests.map((r) => r.body.messages?.at(-1)));
}

async function allFiles(dir: string): Promise<string> {
  const names = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  const texts = await Promise.all(names.map((name) => readFile(join(dir, String(name)), "utf8").catch(() => "")));
  return texts.join("\n");
}

describe("the last review's four classes, through miniclaw run", () => {
  it.each([["default", []], ["plan", ["--permission-mode", "plan"]], ["auto", ["--sandbox", "auto"]], ["bypassPermissions: redaction alone", ["--permission-mode", "bypassPermissions"]]] as const)(
    "keeps a repository's token and secrets under other names from the model, the session and the terminal (%s)",
    async (mode, flags) => {
      const scripted = await startScriptedModel([
        { match: "look", reply: { toolUses: [...COMMANDS.map((command) => ({ name: "run_command", input: { command } })), ...READS.map((path) => ({ name: "read_file", input: { path } }))] } },
        { reply: "done" },
      ]);
      model = scripted;
      const dir = await project();
      const ws = join(dir, "ws");
      const env = cleanEnv({ ANTHROPIC_BASE_URL: scripted.baseURL, ANTHROPIC_API_KEY: "x", HOME: dir });
      const run = await runMain(["run", "--workspace", ws, ...flags, "look around"], { env, cwd: dir });
      expect(run.code, run.stderr).toBe(0);
      const seen = { "tool results": resultsText(scripted.requests), stdout: run.stdout, stderr: run.stderr, "session files": await allFiles(join(ws, "sessions")) };
      for (const [where, text] of Object.entries(seen)) {
        expect(text.includes(TOKEN), `the token reached ${where}`).toBe(false);
        expect(text.includes(HEADER), `the header reached ${where}`).toBe(false);
      }
      // Where everything runs, what kept the token out is redaction by its shape.
      if (mode.startsWith("bypass")) expect(seen["tool results"]).toMatch(/\[redacted: [^\]]+\]/);
    },
  );

  it("asks before the model rewrites an agent's SOUL.md or a workspace's cron.json, whatever the workspace is called, in every mode but bypass", async () => {
    const soul = "---\nname: Jarvis\nweb: true\ndelegates: [researcher]\n---\nYou are Jarvis.\n";
    const cron = '{"jobs": [{"name": "x", "schedule": "* * * * *", "prompt": "rm -rf ."}]}';
    const scripted = await startScriptedModel([
      { match: "grant", reply: { toolUses: [{ name: "write_file", input: { path: "jarvis/agents/main/SOUL.md", content: soul } }, { name: "write_file", input: { path: "jarvis/cron.json", content: cron } }] } },
      { reply: "done" },
    ]);
    model = scripted;
    const dir = await tempDir("miniclaw-classes-");
    await mkdir(join(dir, "jarvis"));
    const env = cleanEnv({ ANTHROPIC_BASE_URL: scripted.baseURL, ANTHROPIC_API_KEY: "x" });
    for (const mode of ["default", "acceptEdits", "plan", "dontAsk"]) {
      const run = await runMain(["run", "--workspace", join(dir, "jarvis"), "--permission-mode", mode, "grant yourself the web"], { env, cwd: dir });
      expect(run.code, run.stderr).toBe(0);
      const results = (scripted.requests.at(-1)?.body.messages?.at(-1)?.content ?? []) as Array<{ is_error?: boolean }>;
      expect(results.map((r) => r.is_error), mode).toEqual([true, true]);
    }
    expect(await readFile(join(dir, "jarvis", "agents", "main", "SOUL.md"), "utf8")).not.toContain("web: true");
    expect(await readFile(join(dir, "jarvis", "cron.json"), "utf8").catch(() => "")).not.toContain("rm -rf");
    const next = await startScriptedModel([{ reply: "hello" }]);
    await runMain(["run", "--workspace", join(dir, "jarvis"), "hi"], { env: cleanEnv({ ANTHROPIC_BASE_URL: next.baseURL, ANTHROPIC_API_KEY: "x" }), cwd: dir });
    expect(JSON.stringify(next.requests[0]?.body.tools)).not.toMatch(/web_search|web_fetch|"delegate"/);
    await next.close();
  });
});
