// The sandbox's mounts without running bwrap: a made-up file system in, bwrap's arguments out, in the order bwrap applies them.
import { describe, expect, it } from "vitest";
import { ToolError } from "../../../src/errors.js";
import { bwrapArgs } from "../../../src/shell/sandbox/sandbox-command.js";
import { homeSecretPaths, policyFor, resolveSandbox, systemSecretPaths, type PathInfo, type PathInspector, type SandboxPolicy } from "../../../src/shell/sandbox/sandbox-policy.js";
import { unixSocketFilter } from "../../../src/shell/sandbox/unix-socket-filter.js";

type Entry = { type: "dir" | "file"; links?: number } | { link: string };

/** An inspector over a map of paths: symlinks resolved (to any depth), missing paths null. */
function fakeFs(entries: Record<string, Entry>): PathInspector {
  const resolve = (path: string, depth = 0): string | null => {
    if (depth > 8) return null;
    const parts = path.split("/").filter((p) => p !== "");
    let at = "";
    for (let i = 0; i < parts.length; i++) {
      at = `${at}/${parts[i]}`;
      const entry = entries[at];
      if (entry === undefined) return null;
      if ("link" in entry) {
        const target = resolve(entry.link, depth + 1);
        if (target === null) return null;
        return i === parts.length - 1 ? target : resolve([target, ...parts.slice(i + 1)].join("/"), depth + 1);
      }
    }
    return at === "" ? "/" : at;
  };
  return {
    inspect(path): PathInfo | null {
      const real = resolve(path);
      const entry = real === null ? undefined : entries[real];
      if (real === null || entry === undefined || "link" in entry) return null;
      return { real, type: entry.type, symlink: entries[path] !== undefined && "link" in entries[path], links: entry.links ?? 1 };
    },
    linkedFiles: () => [],
  };
}

const dirs = (...paths: string[]): Record<string, Entry> => Object.fromEntries(paths.map((p) => [p, { type: "dir" }]));
const files = (...paths: string[]): Record<string, Entry> => Object.fromEntries(paths.map((p) => [p, { type: "file" }]));

const TREE: Record<string, Entry> = {
  ...dirs("/w", "/w/p", "/w/p/.git", "/w/p/.git/hooks", "/w/h", "/w/h/.ssh", "/w/t", "/data", "/data/aws", "/tmp", "/run"),
  ...files("/w/p/.git/config", "/w/p/.env", "/w/h/.netrc", "/w/h/.ssh/id_rsa", "/w/h/.bashrc"),
  "/w/h/.aws": { link: "/data/aws" },
};

const place = { cwd: "/w/p", tmpdir: "/w/t", home: "/w/h", setting: "on" as const, network: true, projectSecrets: ["/w/p/.env"], listDir: () => [] };

describe("bwrap arguments", () => {
  it("builds the read-only sandbox in the order bwrap must apply it, skipping every path that does not exist", () => {
    const sandbox = resolveSandbox(policyFor("read-only", place), fakeFs(TREE));
    expect(bwrapArgs(sandbox, "ls -la", { disableUserns: true, seccompFd: 3 })).toEqual([
      "--die-with-parent", "--new-session", "--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--seccomp", "3",
      "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
      "--tmpfs", "/tmp", "--tmpfs", "/run",
      "--ro-bind", "/w/p", "/w/p",
      "--bind", "/w/t", "/w/t",
      "--dev-bind", "/dev/null", "/w/h/.netrc", "--dev-bind", "/dev/null", "/w/p/.env",
      "--tmpfs", "/data/aws", "--remount-ro", "/data/aws", "--tmpfs", "/w/h/.ssh", "--remount-ro", "/w/h/.ssh",
      "--setenv", "TMPDIR", "/w/t", "--chdir", "/w/p", "bash", "-c", "ls -la",
    ]);
  });

  it("hides the target of a symlinked secret folder, since a mount on a name would follow it anyway and a second name could reach it", () => {
    const sandbox = resolveSandbox(policyFor("read-only", place), fakeFs(TREE));
    expect(sandbox.maskedDirs).toContain("/data/aws");
    expect(sandbox.maskedDirs).not.toContain("/w/h/.aws");
  });

  it("keeps git hooks and config and AGENTS.md read-only inside the writable folder, and binds .git onto itself so it cannot be renamed away", () => {
    const sandbox = resolveSandbox(policyFor("confined", place), fakeFs({ ...TREE, ...files("/w/p/AGENTS.md") }));
    expect(sandbox).toMatchObject({ writable: ["/w/p"], pinned: ["/w/p/.git"], readOnly: ["/w/p/.git/config", "/w/p/.git/hooks", "/w/p/AGENTS.md"], unprotected: ["/w/p/CLAUDE.md"] });
    const args = bwrapArgs(sandbox, "make", { disableUserns: true, seccompFd: null });
    const at = (...flag: string[]): number => args.findIndex((_, i) => flag.every((f, j) => args[i + j] === f));
    expect(at("--bind", "/w/p", "/w/p")).toBeLessThan(at("--bind", "/w/p/.git", "/w/p/.git"));
    expect(at("--bind", "/w/p/.git", "/w/p/.git")).toBeLessThan(at("--ro-bind", "/w/p/.git/hooks", "/w/p/.git/hooks"));
    expect(at("--ro-bind", "/w/p/.git/hooks", "/w/p/.git/hooks")).toBeLessThan(at("--dev-bind", "/dev/null", "/w/p/.env"));
    expect(args).not.toContain("--share-net");
  });

  it("protects a missing hooks folder through its .git, and reports what has no folder to protect it by (a project with no .git)", () => {
    const noHooks = { ...TREE, "/w/p/.git/hooks": undefined } as unknown as Record<string, Entry>;
    delete noHooks["/w/p/.git/hooks"];
    expect(resolveSandbox(policyFor("confined", place), fakeFs(noHooks))).toMatchObject({ pinned: [], readOnly: ["/w/p/.git"] });
    const noGit = Object.fromEntries(Object.entries(TREE).filter(([path]) => !path.startsWith("/w/p/.git")));
    expect(resolveSandbox(policyFor("confined", place), fakeFs(noGit)).unprotected).toEqual(["/w/p/.git/hooks", "/w/p/.git/config", "/w/p/AGENTS.md", "/w/p/CLAUDE.md"]);
  });

  it("drops a mask under a folder already hidden, and one under the private /tmp unless a bound folder brings it back", () => {
    const policy: SandboxPolicy = {
      ...policyFor("read-only", place), cwd: "/tmp/p", tmpdir: "/tmp/t",
      masked: ["/w/h/.ssh", "/w/h/.ssh/id_rsa", "/tmp/other/.env", "/tmp/p/.env"],
    };
    const tree = { ...TREE, ...dirs("/tmp/p", "/tmp/t", "/tmp/other"), ...files("/tmp/other/.env", "/tmp/p/.env") };
    expect(resolveSandbox(policy, fakeFs(tree))).toMatchObject({ maskedDirs: ["/w/h/.ssh"], maskedFiles: ["/tmp/p/.env"], visible: ["/tmp/p"] });
  });

  it("refuses to resolve a sandbox for a working folder that no longer exists, as an error the model can act on", () => {
    expect(() => resolveSandbox({ ...policyFor("read-only", place), cwd: "/w/gone" }, fakeFs(TREE))).toThrow(
      new ToolError("cannot sandbox the command: the working folder /w/gone does not exist"),
    );
  });

  it("says which masked secret has another name (a hard link) that no mount hides", () => {
    const tree = { ...TREE, "/w/h/.netrc": { type: "file" as const, links: 2 } };
    expect(resolveSandbox(policyFor("read-only", place), fakeFs(tree)).warnings).toEqual(["/w/h/.netrc has another name (a hard link) that the sandbox does not hide"]);
  });

  it("lets an approved command keep the network, Unix sockets and the home's credentials, but not write the workspace", () => {
    const policy = policyFor("approved", { ...place, workspace: "/w/ws", configFiles: ["/w/ws/mcp.json"] });
    expect(policy).toMatchObject({ writableRoots: ["/w/p"], readOnlyInside: ["/w/ws", "/w/ws/mcp.json"], network: true, unixSockets: true });
    expect(policy.masked).not.toContain("/w/h/.ssh");
    const args = bwrapArgs(resolveSandbox(policy, fakeFs(TREE)), "git push", { disableUserns: false, seccompFd: null });
    expect(args).toContain("--share-net");
    expect(args).not.toContain("/run");
    expect(args).not.toContain("--disable-userns");
  });

  it("in auto, keeps git hooks and config and the shell start-up files read-only for approved commands too", () => {
    const policy = policyFor("approved", { ...place, setting: "auto" });
    expect(policy.readOnlyInside).toEqual(expect.arrayContaining(["/w/p/.git/hooks", "/w/p/.git/config", "/w/h/.bashrc", "/w/h/.profile"]));
  });

  it("lists the home's and the system's secret locations, host keys expanded", () => {
    expect(homeSecretPaths("/h")).toEqual(expect.arrayContaining(["/h/.ssh", "/h/.aws", "/h/.gnupg", "/h/.config/gh", "/h/.docker", "/h/.kube", "/h/.netrc", "/h/.git-credentials", "/h/.bash_history", "/h/.zsh_history", "/h/.python_history", "/h/.psql_history", "/h/.mysql_history", "/h/.node_repl_history", "/h/.config/gcloud", "/h/.azure", "/h/.npmrc", "/h/.pypirc", "/h/.pgpass", "/h/.password-store"]));
    const listDir = (dir: string): string[] => (dir === "/etc/ssh" ? ["ssh_config", "ssh_host_ed25519_key", "ssh_host_ed25519_key.pub", "ssh_host_rsa_key"] : []);
    expect(systemSecretPaths(listDir)).toEqual(["/run/secrets", "/var/run/secrets", "/etc/shadow", "/etc/gshadow", "/etc/ssh/ssh_host_ed25519_key", "/etc/ssh/ssh_host_rsa_key"]);
  });

  it("assembles a seccomp program of whole instructions for the hosts it knows, and none for others", () => {
    expect(unixSocketFilter("x64")?.length).toBe(17 * 8);
    expect(unixSocketFilter("arm64")?.length).toBe(15 * 8);
    expect(unixSocketFilter("riscv64")).toBeNull();
  });
});
