// run_command over real child processes: the gate first, then exit codes, the timeout's group kill, capped output, a clean env,
// the read-only sandbox (sed, awk, git), memory and output limits.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ApprovalDecision } from "../../src/types.js";
import { ToolError } from "../../src/errors.js";
import { createRunCommandTool } from "../../src/shell/run-command.js";
import { returnScratch, takeScratch } from "../../src/shell/command-scratch.js";
import { scrubEnv, secretValues } from "../../src/gate/secret-env.js";
import type { Gate } from "../../src/gate/context.js";
import { accessOf } from "../../src/tools/define.js";
import { checkCommandSafety } from "../../src/shell/safety.js";
import { buildToolContext } from "../helpers/tool-context.js";
import { until } from "../helpers/manual-clock.js";
import { listProcesses } from "../helpers/mcp.js";
import { runModuleScript, sourceUrl } from "../helpers/module-script.js";
import { gatedRun } from "../tools/gated-run.js";
import type { TestToolContext } from "../helpers/tool-context.js";
import { removeAfterFile, tempDirSync } from "../helpers/temp-dir.js";

const tool = createRunCommandTool();

async function run(context: TestToolContext, command: string, runTool = tool): Promise<string> {
  return (await gatedRun(runTool, { command }, context)) as string;
}

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

/** Alive and not a zombie waiting to be reaped. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "";
  return !/^\d+ \(.*\) Z/.test(stat);
}

describe("run_command", () => {
  it("runs a safe command and reports the exit code and stdout", async () => {
    const context = await buildToolContext();
    expect(await run(context, "echo hello")).toBe("exit code: 0\n\nstdout:\nhello");
    expect(context.events).toEqual([]);
  });

  it("reports a non-zero exit code with stderr", async () => {
    const context = await buildToolContext();
    const out = await run(context, "ls ./does-not-exist");
    expect(out).toMatch(/^exit code: 2\n\nstderr:\n.*does-not-exist/);
  });

  it("runs in the working directory with stdin closed, so cat without a file ends at once", async () => {
    const context = await buildToolContext();
    writeFileSync(join(context.cwd, "marker.txt"), "here\n");
    const started = Date.now();
    expect(await run(context, "cat")).toBe("exit code: 0\n\n(no output)");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await run(context, "cat marker.txt")).toBe("exit code: 0\n\nstdout:\nhere");
  });

  it("refuses an unsafe command when nobody can approve it, and says so", async () => {
    const context = await buildToolContext();
    writeFileSync(join(context.cwd, "victim"), "x");
    const error = await failure(run(context, "ls; rm -rf victim"));
    expect(error.message).toContain("needs the user's approval");
    expect(error.message).toContain("nobody is here");
    expect(existsSync(join(context.cwd, "victim"))).toBe(true);
    expect(context.events).toEqual([
      { type: "approval", id: "toolu_test", command: "ls; rm -rf victim", decision: "unavailable", reason: "rm writes, moves or deletes files" },
    ]);
  });

  it("runs an unsafe command the approver allows", async () => {
    const decisions: ApprovalDecision[] = ["allow_once"];
    const context = await buildToolContext({ approver: async () => decisions.shift() ?? "deny_once" });
    writeFileSync(join(context.cwd, "victim"), "x");
    expect(await run(context, "rm victim")).toBe("exit code: 0\n\n(no output)");
    expect(existsSync(join(context.cwd, "victim"))).toBe(false);
  });

  it("kills the whole process group on timeout, grandchildren included", async () => {
    const context = await buildToolContext({ mode: "bypassPermissions" });
    const marker = `7${Math.floor(Math.random() * 1e6)}`;
    const quick = createRunCommandTool({ timeoutMs: 500 });
    const started = Date.now();
    const error = await failure(run(context, `sleep 100.${marker} & echo $!; sleep 100.${marker} & echo $!; echo $$; sleep 100.${marker}`, quick));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(error.message.split("\n")[0]).toBe("timed out after 0.5s; the process group was killed");
    const pids = [...error.message.matchAll(/^(\d+)$/gm)].map((m) => Number(m[1]));
    expect(pids).toHaveLength(3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(pids.filter(isAlive)).toEqual([]);
    const survivors = spawnSync("pgrep", ["-f", `sleep 100.${marker}`], { encoding: "utf8" }).stdout.trim();
    expect(survivors.split("\n").filter((pid) => pid !== "" && isAlive(Number(pid)))).toEqual([]);
  });

  it("does not hang when a background child keeps the output pipe open", async () => {
    const context = await buildToolContext({ mode: "bypassPermissions" });
    const started = Date.now();
    const out = await run(context, "sleep 100 & echo $!; echo started");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(out).toContain("started");
    expect(out).toContain("background processes still holding the output were killed");
    const pid = Number(/^(\d+)$/m.exec(out)?.[1]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isAlive(pid)).toBe(false);
  });

  it("stops on the abort signal", async () => {
    const context = await buildToolContext({ mode: "bypassPermissions" });
    setTimeout(() => context.controller.abort(), 200);
    const error = await failure(run(context, "sleep 100"));
    expect(error.message).toMatch(/^aborted; the process group was killed/);
  });

  it("caps long output, keeping head and tail and marking the cut", async () => {
    const context = await buildToolContext({ mode: "bypassPermissions" });
    const capped = createRunCommandTool({ maxOutputBytes: 1_000 });
    const out = await run(context, "seq 1 20000", capped);
    const total = Buffer.byteLength(Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join(""));
    expect(out.startsWith("exit code: 0\n\nstdout:\n1\n2\n3\n")).toBe(true);
    expect(out.endsWith("19999\n20000")).toBe(true);
    expect(out).toContain(`[... ${total - 1_000} bytes cut from the middle of this output ...]`);
    expect(out.length).toBeLessThan(1_200);
  });

  it("gives the child an environment without ANTHROPIC_* or secret-looking names", async () => {
    const parent = { ...process.env, ANTHROPIC_API_KEY: "sk-ant-test-secret", GITHUB_TOKEN: "ghp-secret", DB_PASSWORD: "pw-secret", KEEP_ME: "visible" };
    const context = await buildToolContext({ mode: "bypassPermissions", env: scrubEnv(parent) });
    const out = await run(context, "env");
    expect(out).toContain("KEEP_ME=visible");
    for (const secret of ["ANTHROPIC_API_KEY", "sk-ant-test-secret", "GITHUB_TOKEN", "ghp-secret", "DB_PASSWORD", "pw-secret"]) {
      expect(out).not.toContain(secret);
    }
  });

  it("is read-only exactly when the command is safe", async () => {
    const context = await buildToolContext();
    const judged = async (command: string) => (await context.gate.check({ id: "t", tool: tool.name, input: { command }, access: await accessOf(tool, { command }, context) })).readOnly;
    expect(await judged("git status")).toBe(true);
    expect(await judged("git status; rm x")).toBe(false);
  });
});

describe("scrubEnv", () => {
  it("removes ANTHROPIC_* and names with KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL", () => {
    const env = { ANTHROPIC_BASE_URL: "u", AWS_SECRET_ACCESS_KEY: "s", npm_token: "t", MY_CREDENTIALS: "c", PATH: "/bin", HOME: "/h" };
    expect(scrubEnv(env)).toEqual({ PATH: "/bin", HOME: "/h" });
  });

  it("removes variables whose value looks like a credential, whatever their name, and redacts those values", () => {
    const env = {
      DATABASE_URL: "postgres://app:hunter2hunter2@db.internal:5432/prod",
      REDIS: "redis://:s3cretpassw0rd@cache:6379/0",
      MINICLAW_DATABASE_URL: "postgresql://u:p@h/db",
      MY_VAR: "sk-ant-api03-abcdefghijklmnop",
      GH: "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
      PLAIN_URL: "https://example.com/path?q=user:x@y",
      DOCS: "https://user@example.com/",
      PATH: "/bin",
    };
    expect(scrubEnv(env)).toEqual({ PLAIN_URL: env.PLAIN_URL, DOCS: env.DOCS, PATH: "/bin" });
    expect(secretValues(env).sort()).toEqual(
      [env.DATABASE_URL, "hunter2hunter2", env.REDIS, "s3cretpassw0rd", env.MINICLAW_DATABASE_URL, env.MY_VAR, env.GH].sort(),
    );
    expect(secretValues({ ANTHROPIC_BASE_URL: "http://localhost:4000", API_KEY: "short" })).toEqual([]);
  });

  it("removes passwords and tokens under other names and shapes, and the folders cd could be sent to", async () => {
    const secrets = {
      DB_PASS: "p", MYSQL_PWD: "p", SMTP_PASS: "p", SENTRY_DSN: "https://k@o.ingest.example/1", SLACK_WEBHOOK_URL: "https://x",
      JDBC: "jdbc:postgresql://db/app?user=a&password=hunter22", PG: "postgres://db/app?password=hunter22", STRIPE: "sk_live_0123456789abcdef",
      GOOGLE: "AIzaSyA0123456789abcdefghijklmnopqrstuv", NPM: "npm_0123456789abcdefghijklmnopqrstuvwxyz", HF: "hf_0123456789abcdefghijklmnopqrstuvwx",
      SESSION: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", HOOK: "https://hooks.slack.com/services/T0/B0/x",
    };
    const kept = { PWD: "/w", PATH: "/bin", PASSAGE: "x", COMPASS: "y", LANG: "C" };
    expect(scrubEnv({ ...secrets, ...kept })).toEqual(kept);
    const context = await gateAnswering(false, { ...process.env, OLDPWD: "/root", CDPATH: "/etc" });
    expect(await run(context, 'echo "[$OLDPWD][$CDPATH]"; cd - 2>&1 | head -c 40')).toMatch(/stdout:\n\[\]\[\]\n.*OLDPWD not set/);
  });
});

/** A tool context whose gate allows everything and answers `readOnly` as given: the sandbox alone stands between the command and harm. */
async function gateAnswering(readOnly: boolean, env?: Record<string, string | undefined>): Promise<TestToolContext & { outside: string }> {
  const context = await buildToolContext(env ? { env } : {});
  const outside = removeAfterFile(join(context.cwd, "..", `${context.cwd.split("/").pop()}-outside`));
  mkdirSync(outside);
  return { ...context, gate: answering(context.gate, readOnly), outside };
}

/** A gate that allows every call, judged read-only or not as given. */
function answering(gate: Gate, readOnly: boolean): Gate {
  return {
    mode: gate.mode,
    check: async () => ({ readOnly, settle: async () => ({ allowed: true, readOnly }) }),
    askLeavePlan: (plan, id) => gate.askLeavePlan(plan, id),
    deniesTool: (tool) => gate.deniesTool(tool),
  };
}

/** A folder the model could write with write_file: a bare repository whose config names a program. */
function writeBareRepo(dir: string, config: string): void {
  for (const sub of ["objects", "refs", "w"]) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(join(dir, "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(dir, "config"), config);
  writeFileSync(join(dir, "objects", "keep"), "");
  writeFileSync(join(dir, "refs", "keep"), "");
  writeFileSync(join(dir, "a"), "a\n");
  writeFileSync(join(dir, "b"), "b\n");
}

function git(cwd: string, ...args: string[]): void {
  const result = spawnSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: cwd } });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
}

describe("the read-only sandbox", () => {
  it("runs sed and awk sandboxed when the gate judged the command read-only: no program runs, no file is written", async () => {
    const context = await gateAnswering(true);
    const pwned = "../" + context.outside.split("/").pop() + "/PWNED";
    const attacks = [
      `echo a | sed 's/[/x/g;s]]/R/;e id > ${pwned} #]g'`,
      `echo a | sed -n '1,/[/p;s]]/e id > ${pwned} #]g'`,
      `echo a | sed 's/[/x/g;s]]/R/w ${pwned} #]g'`,
      `echo a | \\sed 's/[/x/g;s]]/R/;e id #]g'`,
      `echo a | 'sed' '1e id'`,
      `echo "$(echo a | sed 's/a/b/;W ${pwned}')"`,
      `awk 'BEGIN { system("id > ${pwned}") }'`,
      `awk 'BEGIN { print "x" > "${pwned}" }'`,
      `echo | gawk '{ "id" | getline line; print line }'`,
    ];
    for (const command of attacks) {
      const out = await run(context, command);
      expect(out, command).toMatch(/sandbox/);
      expect(out, command).not.toMatch(/uid=\d+/);
    }
    expect(readdirSync(context.outside)).toEqual([]);
  });

  it("runs sed as asked when the command was approved rather than judged read-only", async () => {
    const context = await gateAnswering(false);
    expect(await run(context, "echo a | sed 's/a/b/w written'")).toBe("exit code: 0\n\nstdout:\nb");
    expect(readFileSync(join(context.cwd, "written"), "utf8")).toBe("b\n");
  });

  it("never lets git use a bare repository it only discovered, whatever the verdict (diff.external, core.fsmonitor)", async () => {
    for (const readOnly of [true, false]) {
      const context = await gateAnswering(readOnly);
      const payload = (name: string): string => `touch ${join(context.outside, name)}; false`;
      writeBareRepo(join(context.cwd, "x"), `[diff]\n\texternal = "${payload("EXTERNAL")}; echo"\n`);
      const fsmonitor = `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = "w"\n\tfsmonitor = "${payload("FSMONITOR")}"\n`;
      writeBareRepo(join(context.cwd, "y"), fsmonitor);
      expect(await run(context, "cd x && git diff --no-index a b")).toContain("+b");
      expect(await run(context, "cd y && git status")).toContain("cannot use bare repository");
      for (const command of ["cd y && git diff", "cd y && git ls-files", "cd y && git -P log"]) await run(context, command);
      expect(readdirSync(context.outside), `readOnly: ${readOnly}`).toEqual([]);
    }
  });

  it("keeps the user's own GIT_CONFIG_* pairs and adds its own after them", async () => {
    const env = { PATH: process.env["PATH"], HOME: process.env["HOME"], GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "user.name", GIT_CONFIG_VALUE_0: "Someone" };
    const context = await gateAnswering(false, env);
    expect(await run(context, "git config user.name; git config safe.bareRepository")).toBe("exit code: 0\n\nstdout:\nSomeone\nexplicit");
  });

  it("turns off external diff, textconv and fsmonitor for read-only git, even from a repository's own config", async () => {
    const readOnly = await gateAnswering(true);
    const repo = readOnly.cwd;
    const payload = (name: string): string => `touch ${join(readOnly.outside, name)}`;
    git(repo, "init", "-q", "-b", "main");
    writeFileSync(join(repo, ".gitattributes"), "*.txt diff=conv\n");
    writeFileSync(join(repo, "a.txt"), "one\n");
    git(repo, "add", ".");
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one");
    writeFileSync(join(repo, "a.txt"), "two\n");
    git(repo, "config", "diff.external", `sh -c '${payload("EXTERNAL")}'`);
    git(repo, "config", "diff.conv.textconv", `sh -c '${payload("TEXTCONV")}; cat "$0"'`);
    git(repo, "config", "core.fsmonitor", `sh -c '${payload("FSMONITOR")}'`);
    for (const command of ["git diff", "git log -p", "git show HEAD", "git --no-pager diff HEAD", "git blame a.txt", "git status --short", "git stash show"]) {
      await run(readOnly, command);
    }
    expect(readdirSync(readOnly.outside)).toEqual([]);
    expect(await run(readOnly, "git diff --ext-diff")).toMatch(/git --ext-diff is not allowed in a command that runs unasked/);
    const approved = { ...readOnly, gate: answering(readOnly.gate, false) };
    await run(approved, "git diff");
    expect(readdirSync(readOnly.outside)).toContain("EXTERNAL");
  });
});

describe("limits", () => {
  it("stops a command that allocates without end at the memory limit, and says so", async () => {
    const context = await buildToolContext({ mode: "bypassPermissions" });
    const small = createRunCommandTool({ memoryLimitBytes: 64 * 1024 ** 2 });
    const out = await run(context, "tail -n1 /dev/zero", small);
    expect(out).toMatch(/^exit code: 1\n\nstderr:\ntail: memory exhausted/);
    expect(out).toContain("(the command ran out of memory: each of its processes may use at most 64 MiB of data memory)");
    const words = await run(context, `echo ${"{a,b}".repeat(26)} | wc -w`, small);
    expect(Number(/stdout:\n\s*(\d+)/.exec(words)?.[1])).toBeLessThan(2 ** 26);
  });

  it("gives a read-only command a temporary folder of its own, emptied when it ends, even when it is killed", async () => {
    const parent = tempDirSync("miniclaw-tmp-");
    const context = await gateAnswering(true, { ...process.env, TMPDIR: parent });
    // sort -S 64K spills to temporary files within milliseconds; the timeout only has to find it still running.
    const short = createRunCommandTool({ timeoutMs: 600 });
    const error = await failure(run(context, "seq 1 100000000 | sort -S 64K >/dev/null", short));
    expect(error.message).toMatch(/^timed out/);
    // The killed command's folder held its spill files: removed with them, not kept.
    expect(readdirSync(parent)).toEqual([]);
    const first = await run(context, 'echo "$TMPDIR"; ls -A "$TMPDIR" | wc -l');
    expect(first).toMatch(new RegExp(`stdout:\n${parent}/miniclaw-cmd-[A-Za-z0-9]+\n0$`));
    // A folder left empty is kept for the next command, which finds it empty too.
    const second = await run(context, 'echo "$TMPDIR"; ls -A "$TMPDIR" | wc -l');
    expect(second).toBe(first);
    expect(readdirSync(parent)).toHaveLength(1);
    // Two commands at once get a folder each.
    const both = await Promise.all([run(context, 'sleep 0.3; echo "$TMPDIR"'), run(context, 'sleep 0.3; echo "$TMPDIR"')]);
    expect(new Set(both).size).toBe(2);
    for (const dir of readdirSync(parent)) expect(readdirSync(join(parent, dir))).toEqual([]);
  });

  it("kills what a read-only command leaves running (a sort inside <(...) still reading), and keeps no folder it may write to", async () => {
    const parent = tempDirSync("miniclaw-tmp-");
    const context = await buildToolContext({ env: { PATH: process.env["PATH"], HOME: process.env["HOME"], TMPDIR: parent } });
    // Sorting three million lines in 1 MiB spills for half a second or more (0.6 s here); diff ends at once, and so does bash.
    execFileSync("bash", ["-c", `seq 1 3000000 | tac > ${join(context.cwd, "big.txt")}`]);
    mkdirSync(join(context.cwd, "sub"));
    const sortRunning = (): boolean => listProcesses().some((row) => /^sort -S 1M \S*big\.txt/.test(row.args));
    // The gate runs each unasked: plain, after cd, through a glob, inside a pipeline.
    const commands = [
      "diff <(sort -S 1M big.txt 2>/dev/null) missing.txt",
      "cd sub && diff <(sort -S 1M ../big.txt 2>/dev/null) missing.txt",
      "diff <(sort -S 1M b*.txt 2>/dev/null) missing.txt",
      "diff <(sort -S 1M big.txt 2>/dev/null) missing.txt | head -1",
    ];
    for (const command of commands) {
      const out = await run(context, command);
      expect(out).toContain("(processes the command left running were killed when it ended");
      await until(() => !sortRunning(), 5_000, command);
      // Its folder went with whatever the sort had spilled into it.
      expect(readdirSync(parent)).toEqual([]);
    }
    // One that still holds the output is waited for a moment after the shell's end, then killed with the rest: none is left either way.
    await run(context, "diff <(sort -S 1M big.txt) missing.txt");
    await until(() => !sortRunning());
  });

  it("says nothing of strays, and keeps the folder, when a <(...) has finished before its command", async () => {
    const parent = tempDirSync("miniclaw-tmp-");
    const context = await buildToolContext({ env: { PATH: process.env["PATH"], HOME: process.env["HOME"], TMPDIR: parent } });
    writeFileSync(join(context.cwd, "a.txt"), "b\na\n");
    writeFileSync(join(context.cwd, "b.txt"), "a\nb\n");
    // bash runs cat in its own place, so the finished sort is nobody's child until the system's first process reaps it.
    for (let i = 0; i < 5; i++) {
      expect(await run(context, "cat <(sort a.txt)")).toBe("exit code: 0\n\nstdout:\na\nb");
      expect(await run(context, "diff <(sort a.txt) <(sort b.txt)")).toBe("exit code: 0\n\n(no output)");
    }
    expect(readdirSync(parent)).toHaveLength(1);
  });

  it("does not reuse a kept folder that was cleaned away or replaced, and says so when none can be made", async () => {
    const parent = tempDirSync("miniclaw-tmp-");
    const context = await gateAnswering(true, { ...process.env, TMPDIR: parent });
    const folderOf = async (): Promise<string> => (await run(context, 'echo "$TMPDIR"; touch "$TMPDIR/x"; rm "$TMPDIR/x"')).split("\n")[3] as string;
    const kept = await folderOf();
    // The system's cleaning of old temporary files took it.
    rmSync(kept, { recursive: true });
    const next = await folderOf();
    expect(next).not.toBe(kept);
    // Someone else's link now has its name.
    const elsewhere = tempDirSync("miniclaw-elsewhere-");
    rmSync(next, { recursive: true });
    symlinkSync(elsewhere, next);
    const third = await folderOf();
    expect([kept, next]).not.toContain(third);
    expect(readdirSync(elsewhere)).toEqual([]);
    // One that others can now enter is not used either.
    chmodSync(third, 0o755);
    expect([kept, next, third]).not.toContain(await folderOf());
    const nowhere = await gateAnswering(true, { ...process.env, TMPDIR: join(parent, "missing") });
    const error = await failure(run(nowhere, "echo hi"));
    expect(error.message).toMatch(/^cannot make a temporary folder for the command in .*missing: ENOENT/);
  });

  it("removes a kept temporary folder two seconds after the last command, so a process killed later leaves none", async () => {
    const parent = tempDirSync("miniclaw-tmp-");
    const dir = takeScratch(parent);
    await returnScratch(parent, dir, true);
    expect(readdirSync(parent)).toEqual([dir.split("/").pop()]);
    await new Promise((resolve) => setTimeout(resolve, 2_300));
    expect(readdirSync(parent)).toEqual([]);
  });

  it("removes the temporary folders it kept when the process exits", () => {
    const parent = tempDirSync("miniclaw-tmp-");
    const script = `
      const { takeScratch, returnScratch } = await import(${JSON.stringify(sourceUrl("src/shell/command-scratch.ts"))});
      const parent = ${JSON.stringify(parent)};
      const a = takeScratch(parent), b = takeScratch(parent), c = takeScratch(parent);
      for (const dir of [a, b, c]) await returnScratch(parent, dir, true);
      const reused = takeScratch(parent);
      await returnScratch(parent, reused, true);
      const kept = (await import("node:fs")).readdirSync(parent).length;
      // The timer that removes kept folders after a pause does not hold the process: it exits at once.
      const done = performance.now();
      process.on("exit", () => process.stdout.write(JSON.stringify({ kept, reused: reused === b, exitAfterMs: Math.round(performance.now() - done) })));
    `;
    const child = runModuleScript(script);
    expect(child.stderr).toBe("");
    const report = JSON.parse(child.stdout) as { kept: number; reused: boolean; exitAfterMs: number };
    expect({ kept: report.kept, reused: report.reused }).toEqual({ kept: 2, reused: true });
    expect(report.exitAfterMs).toBeLessThan(1_000);
    expect(readdirSync(parent)).toEqual([]);
  });

  it("kills a command whose output passes the bound, before its timeout, and says so", async () => {
    const context = await buildToolContext({ mode: "bypassPermissions" });
    const bounded = createRunCommandTool({ outputLimitBytes: 1024 ** 2, maxOutputBytes: 1_000 });
    const error = await failure(run(context, "yes; echo never", bounded));
    expect(error.message.split("\n")[0]).toBe("the output passed 1 MiB; the process group was killed");
    expect(error.message).toMatch(/bytes cut from the middle/);
    expect(error.message).not.toContain("never");
  });
});
