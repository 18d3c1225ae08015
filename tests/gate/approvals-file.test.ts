// The approvals file: reading (missing, valid, corrupt, invalid) and saving (merged, atomic, safe across processes).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { addApprovals, approvalsReader } from "../../src/gate/approval-entries.js";
import { checkCommandSafety } from "../../src/shell/safety.js";
import { makeTempDir } from "../helpers/tool-context.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));

describe("approvalsReader: reading the lists", () => {
  it("reads a missing or empty file as empty lists", async () => {
    const dir = await makeTempDir();
    expect(approvalsReader(join(dir, "exec-approvals.json"))()).toEqual({ allowed: [], denied: [] });
    writeFileSync(join(dir, "empty.json"), "\n");
    expect(approvalsReader(join(dir, "empty.json"))()).toEqual({ allowed: [], denied: [] });
  });

  it("warns about a corrupt file, naming it and the problem, approves nothing and leaves it untouched", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "exec-approvals.json");
    const corrupt = '{"allowed": ["rm -rf build"], ';
    writeFileSync(path, corrupt);
    const warnings: string[] = [];
    expect(approvalsReader(path, (m) => warnings.push(m))()).toEqual({ allowed: [], denied: [] });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: is not valid JSON \\(.+\\)\\. The file was left as it is`));
    expect(await addApprovals(path, { allowed: ["ls"] }, (m) => warnings.push(m))).toBe(false);
    expect(warnings[1]).toContain("The decision was not saved and the file was left as it is.");
    expect(readFileSync(path, "utf8")).toBe(corrupt);
  });

  it("warns about a file of the wrong shape, saying which field", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "exec-approvals.json");
    writeFileSync(path, JSON.stringify({ allowed: "npm test", denied: [] }));
    const warnings: string[] = [];
    expect(approvalsReader(path, (m) => warnings.push(m))()).toEqual({ allowed: [], denied: [] });
    expect(warnings[0]).toContain("is not a valid approvals file (allowed: ");
  });
});

describe("approvalsReader, the gate's reader", () => {
  const OLD = new Date(Date.now() - 60_000);
  /** A wall clock ten seconds ahead, so the file's change time (now, whatever utimes says) is no longer recent. */
  const later = (): { now: () => number; advance: (ms: number) => void } => {
    let at = Date.now() + 10_000;
    return { now: () => at, advance: (ms) => (at += ms) };
  };

  it("reads the file once while it stays the same, again after two seconds, and a missing one as empty lists", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "exec-approvals.json");
    const clock = later();
    const read = approvalsReader(path, undefined, clock.now);
    expect(read()).toEqual({ allowed: [], denied: [] });
    writeFileSync(path, JSON.stringify({ allowed: ["npm test"], denied: ["rm -rf build"] }));
    utimesSync(path, OLD, OLD);
    const first = read();
    expect(first).toEqual({ allowed: ["npm test"], denied: ["rm -rf build"] });
    clock.advance(1_000);
    expect(read()).toBe(first);
    clock.advance(1_500);
    const again = read();
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });

  it("sees an edit that keeps the size and puts the modification time back, by the change time", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "exec-approvals.json");
    writeFileSync(path, JSON.stringify({ allowed: [], denied: ["git push"] }));
    utimesSync(path, OLD, OLD);
    const read = approvalsReader(path, undefined, later().now);
    expect(read().denied).toEqual(["git push"]);
    writeFileSync(path, JSON.stringify({ allowed: [], denied: ["git pull"] }));
    utimesSync(path, OLD, OLD);
    expect(read().denied).toEqual(["git pull"]);
  });

  it("sees a rewrite of the same size made just after a read, with the modification time put back", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "exec-approvals.json");
    const read = approvalsReader(path);
    writeFileSync(path, JSON.stringify({ allowed: [], denied: ["aaa"] }));
    expect(read().denied).toEqual(["aaa"]);
    const { mtime } = statSync(path);
    writeFileSync(path, JSON.stringify({ allowed: [], denied: ["bbb"] }));
    utimesSync(path, mtime, mtime);
    expect(read().denied).toEqual(["bbb"]);
  });

  it("sees a file replaced by an atomic save (a new inode), and a file removed", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "exec-approvals.json");
    const read = approvalsReader(path, undefined, later().now);
    await addApprovals(path, { denied: ["make deploy"] });
    expect(read().denied).toEqual(["make deploy"]);
    await addApprovals(path, { denied: ["make clean"] });
    expect(read().denied).toEqual(["make deploy", "make clean"]);
    rmSync(path);
    expect(read()).toEqual({ allowed: [], denied: [] });
  });

  it("warns about a corrupt file and approves and denies nothing until it is fixed", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "exec-approvals.json");
    writeFileSync(path, '{"denied": ["rm -rf build"], ');
    const warnings: string[] = [];
    const read = approvalsReader(path, (m) => warnings.push(m));
    expect(read()).toEqual({ allowed: [], denied: [] });
    expect(warnings[0]).toMatch(/: is not valid JSON \(.+\)\. The file was left as it is/);
    writeFileSync(path, JSON.stringify({ denied: ["rm -rf build"] }));
    expect(read().denied).toEqual(["rm -rf build"]);
  });

  it("sees a deny however the file changes under a reader that trusts its stat: a symlink repointed to an older file, cp -p in place, a file moved over it", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "exec-approvals.json");
    const write = (file: string, list: "allowed" | "denied"): void => {
      writeFileSync(file, JSON.stringify({ allowed: list === "allowed" ? ["npm test"] : [], denied: list === "denied" ? ["npm test"] : [] }));
      utimesSync(file, OLD, OLD);
    };
    const variants: Array<[string, () => void]> = [
      ["symlink repointed", () => {
        write(join(dir, "approve.json"), "allowed");
        write(join(dir, "deny.json"), "denied");
        symlinkSync("approve.json", path);
      }],
      ["cp -p in place", () => write(path, "allowed")],
      ["moved over", () => write(path, "allowed")],
    ];
    const changes: Record<string, () => void> = {
      "symlink repointed": () => {
        rmSync(path);
        symlinkSync("deny.json", path);
      },
      "cp -p in place": () => {
        write(join(dir, "prepared.json"), "denied");
        execFileSync("cp", ["-p", join(dir, "prepared.json"), path]);
      },
      "moved over": () => {
        write(join(dir, "next.json"), "denied");
        renameSync(join(dir, "next.json"), path);
      },
    };
    for (const [name, arrange] of variants) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir);
      arrange();
      const read = approvalsReader(path, undefined, later().now);
      expect(read(), name).toEqual({ allowed: ["npm test"], denied: [] });
      expect(read(), name).toEqual({ allowed: ["npm test"], denied: [] });
      changes[name]!();
      expect(read(), name).toEqual({ allowed: [], denied: ["npm test"] });
    }
  });

  it("warns about a FIFO or a device in the file's place instead of blocking on it", async () => {
    const dir = await makeTempDir();
    const fifo = join(dir, "fifo.json");
    execFileSync("mkfifo", [fifo]);
    const device = join(dir, "device.json");
    symlinkSync("/dev/zero", device);
    for (const path of [fifo, device]) {
      const warnings: string[] = [];
      expect(approvalsReader(path, (m) => warnings.push(m))()).toEqual({ allowed: [], denied: [] });
      expect(warnings).toEqual([`${path}: cannot be read (it is not a regular file). The file was left as it is; until it is fixed no command is approved or denied by it.`]);
    }
  });
});

describe("too broad allowed entries", () => {
  it("leaves out entries that approve every use of a program, with one warning each, and keeps narrow ones", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "exec-approvals.json");
    const broad = ["*", "* -rf x", "rm *", "rm -rf *", "bash * *", "r? x", "python3 -c *"];
    const narrow = ["rm -rf build", "npm test *", "npm run * --prod", "git log *", "rm -rf dist/*"];
    writeFileSync(path, JSON.stringify({ allowed: [...broad, ...narrow], denied: ["rm *"] }));
    const warnings: string[] = [];
    const lists = approvalsReader(path, (m) => warnings.push(m))();
    expect(lists).toEqual({ allowed: narrow, denied: ["rm *"] });
    expect(warnings.map((w) => /the allowed entry "(.*)" is ignored/.exec(w)?.[1])).toEqual(broad);
  });

  it("approves nothing through them even when they are passed to checkCommandSafety directly", async () => {
    const allowed = ["rm *", "rm -rf *", "*", "* victim"];
    const verdicts = await Promise.all(["rm x", "rm -rf victim", "rm *", "curl x | sh"].map((c) => checkCommandSafety(c, { allowed })));
    expect(verdicts).toEqual(["needs_approval", "needs_approval", "needs_approval", "needs_approval"]);
    expect(await checkCommandSafety("rm -rf victim", { allowed: ["rm -rf victim"] })).toBe("approved");
  });
});

describe("addApprovals", () => {
  it("merges with what is on disk, keeps unknown fields and writes no stray files", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "exec-approvals.json");
    writeFileSync(path, JSON.stringify({ allowed: ["a"], denied: ["x"], version: 2 }));
    expect(await addApprovals(path, { allowed: ["  b  ", "a"] })).toBe(true);
    expect(await addApprovals(path, { denied: ["y"] })).toBe(true);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ allowed: ["a", "b"], denied: ["x", "y"], version: 2 });
    expect(readdirSync(dir)).toEqual(["exec-approvals.json"]);
  });

  it("loses nothing when two processes approve 20 commands each at the same time", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "workspace", "exec-approvals.json");
    const script = [
      "const [entry, path, name] = process.argv.slice(1);",
      "const { addApprovals } = await import(entry);",
      "for (let i = 0; i < 20; i++) await addApprovals(path, { allowed: [`echo ${name} ${i}`] });",
    ].join("\n");
    await Promise.all(["a", "b"].map((name) => runChild(["--input-type=module", "-e", script, BUILT_MODULE, path, name])));
    const saved = JSON.parse(readFileSync(path, "utf8")) as { allowed: string[] };
    expect(saved.allowed.slice().sort()).toEqual(["a", "b"].flatMap((n) => Array.from({ length: 20 }, (_, i) => `echo ${n} ${i}`)).sort());
    expect(readdirSync(dirname(path))).toEqual(["exec-approvals.json"]);
  });

  it("takes over at once the fresh lock of a saver that died, without waiting for it to age", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "exec-approvals.json");
    const deadPid = await exitedPid();
    // Just written (fresh mtime) by a process that is gone: an mtime rule would wait seconds, then time out.
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: deadPid, hostname: hostname(), ts: Date.now(), token: "crashed" }));
    const started = Date.now();
    expect(await addApprovals(path, { allowed: ["ls"] })).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ allowed: ["ls"], denied: [] });
    expect(readdirSync(dir)).toEqual(["exec-approvals.json"]);
  });
});

/** The approvals module as built by the global setup (child processes have no TypeScript loader). */
const BUILT_MODULE = pathToFileURL(join(repo, "dist", "gate", "approval-entries.js")).href;

/** The pid of a child process that has exited (so no process holds it, barring an unlikely reuse). */
function exitedPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    child.on("error", reject);
    child.on("exit", () => resolve(child.pid ?? -1));
  });
}

function runChild(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], cwd: repo });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`child exited ${code}: ${stderr}`))));
  });
}
