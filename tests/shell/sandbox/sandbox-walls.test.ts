// The sandbox's walls under real bubblewrap: where each kind of command may write, whether it reaches the network, what secrets it sees.
import { execFileSync } from "node:child_process";
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codes, makeWorld, probe, removeWorld, runIn, skipReason, steps, worldPolicy, type World } from "./sandbox-harness.js";

describe.skipIf(!probe.available)(`the bubblewrap sandbox's walls${skipReason}`, () => {
  let world: World;
  beforeAll(() => {
    world = makeWorld();
  });
  afterAll(() => removeWorld(world));

  it("lets a read-only command write nowhere, the working folder included, but its own TMPDIR", async () => {
    const ran = await runIn(worldPolicy(world, "read-only"), steps({
      cwd: "touch ro-cwd", home: `touch ${world.home}/ro-home`, base: `touch ${world.base}/ro-base`, varTmp: "touch /var/tmp/miniclaw-ro-probe",
      rename: "mv .env moved.env", tmpdir: `touch "$TMPDIR/ok"`, shm: "touch /dev/shm/private",
    }));
    expect(codes(ran.stdout)).toEqual({ cwd: 1, home: 1, base: 1, varTmp: 1, rename: 1, tmpdir: 0, shm: 0 });
    for (const path of [join(world.cwd, "ro-cwd"), join(world.home, "ro-home"), join(world.base, "ro-base"), "/var/tmp/miniclaw-ro-probe"]) expect(existsSync(path)).toBe(false);
    expect(existsSync(join(world.tmpdir, "ok"))).toBe(true);
  });

  it("lets a confined command write the working folder only, never its git hooks or config, and not move .git aside to forge one", async () => {
    execFileSync("git", ["init", "-q", world.cwd]);
    const ran = await runIn(worldPolicy(world, "confined"), steps({
      cwd: "echo built > out.txt", outside: `touch ${world.base}/escaped`,
      hook: "printf '#!/bin/sh\\ntouch hook-ran\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
      config: "git config core.fsmonitor 'touch fsmonitor-ran'", swap: "mv .git .git-old", remove: "rm -rf .git/hooks",
      index: "git add out.txt",
    }));
    expect(codes(ran.stdout)).toEqual({ cwd: 0, outside: 1, hook: 1, config: 1, swap: 1, remove: 1, index: 0 });
    expect(readFileSync(join(world.cwd, "out.txt"), "utf8")).toBe("built\n");
    expect(readFileSync(join(world.cwd, ".git", "config"), "utf8")).not.toContain("fsmonitor");
    // The later approved git command, run as the user approved it: no hook and no fsmonitor program of the model's runs.
    const approved = await runIn(worldPolicy(world, "approved"), "git -c user.name=t -c user.email=t@t commit -qm built && git status --short && ls");
    expect(approved.code).toBe(0);
    expect(approved.stdout).not.toMatch(/hook-ran|fsmonitor-ran/);
    expect(existsSync(join(world.cwd, "hook-ran")) || existsSync(join(world.cwd, "fsmonitor-ran"))).toBe(false);
  });

  describe("the network", () => {
    let server: Server;
    let url: string;
    beforeAll(async () => {
      server = createServer((_, res) => res.end("hello from the host"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `127.0.0.1/${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));
    // bash's /dev/tcp: no curl needed, and a refused connection is an exit code.
    const fetchHost = (): string => `exec 3<>/dev/tcp/${url} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;

    it("is unreachable from read-only and confined commands: 127.0.0.1 there is the sandbox's own", async () => {
      for (const kind of ["read-only", "confined"] as const) {
        const ran = await runIn(worldPolicy(world, kind), fetchHost());
        expect(ran.code).not.toBe(0);
        expect(ran.stdout).not.toContain("hello from the host");
      }
    });

    it("is reachable from an approved command when the user allows the network, and not when they deny it", async () => {
      expect((await runIn(worldPolicy(world, "approved", { network: true }), fetchHost())).stdout).toContain("hello from the host");
      expect((await runIn(worldPolicy(world, "approved", { network: false }), fetchHost())).stdout).not.toContain("hello from the host");
    });
  });

  it("reads masked secrets as empty or absent, by their names and through symlinks to them made before or inside", async () => {
    symlinkSync(join(world.home, ".netrc"), join(world.cwd, "netrc-link"));
    symlinkSync(join(world.home, ".ssh"), join(world.cwd, "ssh-link"));
    const ran = await runIn(worldPolicy(world, "confined"), [
      `cat ${world.home}/.netrc ${world.home}/.ssh/id_rsa ${world.home}/.aws/credentials .env netrc-link ssh-link/id_rsa 2>&1`,
      `ln -s ${world.home}/.aws/credentials inside-link && cat inside-link`,
      `ls -A ${world.home}/.ssh ${world.home}/.aws; cat ${world.home}/notes.txt`,
    ].join("; "));
    expect(ran.stdout).not.toMatch(/PRIVATE-KEY|NETRC-SECRET|AWS-SECRET|ENV-SECRET/);
    // The control: the home is there, only its secrets are not.
    expect(ran.stdout).toContain("not a secret");
  });

  it("refuses a hard link made inside to a masked file (another mount), and names a secret that already has a second name outside", async () => {
    // Inside: every masked name is a mount point and the working folder its own mount, so link(2) fails with EXDEV.
    const inside = await runIn(worldPolicy(world, "confined"), steps({ home: `ln ${world.home}/.netrc hard-netrc`, env: "ln .env hard-env" }));
    expect(codes(inside.stdout)).toEqual({ home: 1, env: 1 });
    expect(inside.stderr + inside.stdout).not.toContain("ENV-SECRET");
    // Outside, before the command: a second name for the same inode is a file no mount covers, and it is read.
    // No sandboxed command can make one, so it comes from the user or an unsandboxed run; the plan names the secret.
    mkdirSync(join(world.cwd, "docs"), { recursive: true });
    linkSync(join(world.home, ".ssh", "id_rsa"), join(world.cwd, "docs", "key.txt"));
    const leak = await runIn(worldPolicy(world, "read-only"), "cat docs/key.txt");
    expect(leak.stdout).toBe("PRIVATE-KEY\n");
    expect(leak.plan.sandboxed && leak.plan.warnings).toEqual([`${world.home}/.ssh/id_rsa has another name (a hard link) that the sandbox does not hide`]);
  });

  it("hides the host's /tmp and /run from commands that run unasked, and shows them a private /tmp", async () => {
    const hostFile = join(tmpdir(), `miniclaw-sandbox-host-file-${process.pid}`);
    writeFileSync(hostFile, "host tmp");
    try {
      const ran = await runIn(worldPolicy(world, "read-only"), `cat ${hostFile}; ls -A /run | wc -l; echo private > ${hostFile} && cat ${hostFile}`);
      expect(ran.stdout).toBe("0\nprivate\n");
      expect(readFileSync(hostFile, "utf8")).toBe("host tmp");
    } finally {
      rmSync(hostFile, { force: true });
    }
  });
});
