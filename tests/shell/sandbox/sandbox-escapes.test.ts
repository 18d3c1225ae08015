// Attacks on the bubblewrap sandbox, each with what holds and why: /proc, processes that outlive the command, TIOCSTI, FIFOs and sockets, capabilities.
import { spawn as nodeSpawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { spawn as ptySpawn } from "@lydell/node-pty";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveSandbox } from "../../../src/shell/sandbox/sandbox-policy.js";
import { bwrapArgs, planCommand } from "../../../src/shell/sandbox/sandbox-command.js";
import { until } from "../../helpers/manual-clock.js";
import { listProcesses } from "../../helpers/mcp.js";
import { codes, makeWorld, probe, removeWorld, runIn, skipReason, steps, worldPolicy, type World } from "./sandbox-harness.js";

/** Polls until no live process's arguments contain `marker`, or a second passes; resolves to those left. */
async function survivors(marker: string): Promise<string[]> {
  const deadline = Date.now() + 1_000;
  for (;;) {
    const left = listProcesses().filter((row) => row.args.includes(marker)).map((row) => row.args);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!probe.available)(`attacks on the bubblewrap sandbox${skipReason}`, () => {
  let world: World;
  beforeAll(() => {
    world = makeWorld();
  });
  afterAll(() => removeWorld(world));

  it("does not reach the host through /proc/1/root: process 1 is the sandbox's own, its root the sandbox's view", async () => {
    const ran = await runIn(worldPolicy(world, "read-only"), [
      "readlink /proc/1/root; cat /proc/1/comm",
      `cat /proc/1/root${world.home}/.netrc /proc/self/root${world.home}/.ssh/id_rsa 2>&1`,
      `touch /proc/1/root${world.cwd}/via-proc 2>&1 || echo refused`,
    ].join("; "));
    expect(ran.stdout).toMatch(/^\/\nbwrap\n[^]*refused\n$/);
    expect(ran.stdout).not.toMatch(/NETRC-SECRET|PRIVATE-KEY/);
  });

  it("shows no host process's environment: the host's processes are not in its /proc", async () => {
    const outsider = nodeSpawn("sleep", ["30"], { env: { ...process.env, MINICLAW_SANDBOX_MARKER: "host-secret-value" }, stdio: "ignore" });
    try {
      const ran = await runIn(worldPolicy(world, "read-only"), `ls /proc/${outsider.pid} /proc/${process.pid} 2>&1 | grep -c 'No such'; cat /proc/[0-9]*/environ | tr '\\0' '\\n' | grep -c host-secret-value`);
      expect(ran.stdout).toBe("2\n0\n");
    } finally {
      outsider.kill("SIGKILL");
    }
  });

  it("ends a background process with the command, however it was detached", async () => {
    const ran = await runIn(worldPolicy(world, "approved"), "sleep 101.5 & disown; setsid sleep 102.5 & nohup sleep 103.5 >/dev/null 2>&1 & (sleep 104.5 &) ; echo started");
    expect(ran.stdout).toBe("started\n");
    expect(await survivors("sleep 10")).toEqual([]);
  });

  it("ends everything inside when bwrap itself is killed, as a timeout kills the command's process group", async () => {
    const plan = planCommand("sleep 105.5 & sleep 106.5", worldPolicy(world, "approved"), probe);
    const child: ChildProcess = nodeSpawn(plan.file, plan.args, { cwd: world.cwd, stdio: "ignore", detached: true });
    await until(() => listProcesses().some((row) => row.args === "sleep 106.5"), 2_000, "the sandboxed sleep started");
    process.kill(-(child.pid as number), "SIGKILL");
    expect(await survivors("sleep 10")).toEqual([]);
  });

  it("keeps TIOCSTI from typing into the user's terminal: the command runs in a session of its own", async () => {
    const legacy = readFileSync("/proc/sys/dev/tty/legacy_tiocsti", "utf8").trim() !== "0";
    const inject = `perl -e 'for (split //, "echo INJECTED\\n") { ioctl(STDIN, 0x5412, $_) or die "TIOCSTI: $!\\n" }'`;
    const args = bwrapArgs(resolveSandbox(worldPolicy(world, "read-only")), inject, { disableUserns: probe.available && probe.disableUserns, seccompFd: null });
    // The shell that would read what was typed: the user's, on the same terminal, after the command.
    const typedAfter = (bwrap: string[]): Promise<string> => new Promise((resolve) => {
      const script = `"$@"; IFS= read -r -t 0.3 line; echo "typed:[$line]"`;
      const pty = ptySpawn("bash", ["-c", script, "bash", probe.available ? probe.path : "bwrap", ...bwrap], { cwd: world.cwd, env: { PATH: process.env["PATH"] ?? "" } });
      let out = "";
      pty.onData((data) => (out += data));
      pty.onExit(() => resolve(out));
    });
    const sandboxed = await typedAfter(args);
    expect(sandboxed).toContain("TIOCSTI: Operation not permitted");
    expect(sandboxed).toContain("typed:[]");
    // The control, where the kernel still allows TIOCSTI: without --new-session the same bytes reach the shell.
    if (legacy) expect(await typedAfter(args.filter((arg) => arg !== "--new-session"))).toContain("typed:[echo INJECTED]");
  });

  describe("a FIFO and a Unix socket in the working folder, with a process outside at the other end", () => {
    let server: Server;
    let reader: ChildProcess | undefined;
    let heard = "";
    let fifoOut = "";
    beforeAll(async () => {
      const dir = join(world.cwd, "ipc");
      mkdirSync(dir);
      server = createServer((socket) => socket.on("data", (chunk) => (heard += chunk.toString())));
      await new Promise<void>((resolve) => server.listen(join(dir, "agent.sock"), resolve));
      reader = nodeSpawn("bash", ["-c", `mkfifo ${dir}/pipe && cat ${dir}/pipe`], { stdio: ["ignore", "pipe", "ignore"] });
      reader.stdout?.on("data", (chunk: Buffer) => (fifoOut += chunk.toString()));
      await until(() => existsSync(join(dir, "pipe")), 2_000, "the FIFO made outside");
    });
    afterAll(() => {
      reader?.kill("SIGKILL");
      return new Promise((resolve) => server.close(resolve));
    });

    it("refuses a Unix socket to commands that run unasked (seccomp), whatever socket they can see; an approved one may", async () => {
      const connect = `perl -MSocket -e 'socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die "socket: $!\\n"; connect($s, pack_sockaddr_un("ipc/agent.sock")) or die "connect: $!\\n"; syswrite($s, "hello from $ARGV[0]\\n")'`;
      const refused = await runIn(worldPolicy(world, "confined"), `${connect} confined`);
      expect(refused.stderr).toBe("socket: Operation not permitted\n");
      const pairs = await runIn(worldPolicy(world, "confined"), `perl -MSocket -e 'socketpair(my $a, my $b, AF_UNIX, SOCK_STREAM, 0) or die; print "pairs work\\n"'`);
      expect(pairs.stdout).toBe("pairs work\n");
      expect((await runIn(worldPolicy(world, "approved"), `${connect} approved`)).code).toBe(0);
      await until(() => heard !== "", 2_000, "the approved command's line reaching the listener");
      expect(heard).toBe("hello from approved\n");
    });

    it("does NOT stop a write into a FIFO whose reader is outside: a limit, since no mount flag or seccomp rule can tell a FIFO", async () => {
      const ran = await runIn(worldPolicy(world, "read-only"), "echo through-the-fifo > ipc/pipe");
      expect(ran.code).toBe(0);
      await until(() => fifoOut !== "", 2_000, "the line reaching the reader outside");
      expect(fifoOut).toBe("through-the-fifo\n");
    });

    it("leaves no listener behind: a FIFO reader a command starts in the background ends with it", async () => {
      await runIn(worldPolicy(world, "confined"), "mkfifo ipc/left && (cat ipc/left > ipc/heard &) ; echo ok");
      // Opening for writing without blocking fails with ENXIO when nobody reads.
      const outside = await runIn(null, `cd ${world.cwd} && exec 3<>/dev/null && perl -MFcntl -e 'sysopen(my $f, "ipc/left", O_WRONLY|O_NONBLOCK) or die "$!\\n"'`);
      expect(outside.stderr).toBe("No such device or address\n");
    });
  });

  it("keeps the walls when the command tries to take them down: no capability to remount, no user namespace to gain one", async () => {
    const ran = await runIn(worldPolicy(world, "confined"), steps({
      remount: "mount -o remount,rw,bind /", write: `touch ${world.base}/after-remount`, unmask: `umount ${world.home}/.ssh`,
      userns: "unshare -Urm true", caps: "grep -q 'CapEff:\\s*0000000000000000' /proc/self/status",
    }));
    expect(codes(ran.stdout)).toEqual({ remount: 1, write: 1, unmask: 1, userns: 1, caps: 0 });
  });
});
