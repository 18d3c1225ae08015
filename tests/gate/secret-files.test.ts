// Which files are secrets for the file tools: by name (copies, credential files, system folders, a repository's config) and by content, whatever the name.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testGate } from "../helpers/gate.js";
import { pathReason, repositoryConfigReason, CONTENT_HEAD_BYTES, contentSecretReason, fileContentSecretReason } from "../../src/gate/secret-paths.js";
import { makeTempDir } from "../helpers/tool-context.js";
import { randomText, seeded } from "./fixtures/redact-corpus.js";

const random = seeded(99);
const TOKEN = `glpat-${randomText(random, 20)}`;
const PASSWORD = `Pw7${randomText(random, 12)}`;

describe("secret names", () => {
  it("counts copies of secret files as secrets: editor, tool and hand-made backups", () => {
    const copies = [
      ".env~", ".env.bak", ".env.orig", ".env.old", ".env.save", ".env.swp", "id_ed25519.bak", "id_rsa.orig", ".id_rsa.swp", "key.pem.bak", "server.key.old",
      "#.env#", "id_rsa.~2~", ".npmrc.backup", "credentials.tmp", "key.pem.bak.orig", ".pgpass~", "terraform.tfstate.bak", ".aws.old/credentials2",
    ];
    expect(copies.filter((name) => pathReason(name) === null)).toEqual([]);
  });

  it("counts credential files under their common names, and the system's secret folders and files", () => {
    const files = [
      "terraform.tfstate", "terraform.tfstate.backup", "secret.tfvars", ".my.cnf", ".mylogin.cnf", ".dockercfg", "kubeconfig", "kubeconfig.yaml", "dev.kubeconfig",
      "secrets.yaml", "secrets.yml", "app.secrets.json", "credentials.yaml", "aws_credentials.csv", ".pgpass", ".terraformrc", "production.env", "serviceAccountKey.json",
      "client_secret_1234.apps.googleusercontent.com.json", "deploy_ed25519", "AuthKey_X1.p8", "id.ppk", "http.keytab", "krb5cc_1000", "ssh_host_ecdsa_key", "ipsec.secrets",
      "/run/secrets/db", "/var/run/secrets/kubernetes.io/serviceaccount/token", "/run/credentials/x.service/pw", "/etc/ssh/ssh_host_ed25519_key", "/etc/shadow-",
      "/etc/gshadow.bak", "/etc/ssl/private/a.crt", "/etc/mysql/debian.cnf", "/etc/kubernetes/admin.conf", "/etc/NetworkManager/system-connections/wifi",
    ];
    expect(files.filter((name) => pathReason(name) === null)).toEqual([]);
  });

  it("leaves their harmless relatives alone", () => {
    const harmless = [
      ".env.example", ".env.example~", "id_ed25519.pub", "/etc/ssh/ssh_host_ed25519_key.pub", "/etc/ssh/sshd_config", "config.yaml", "secrets.ts", "tokens.css",
      "package.json", "notes.bak", "Cargo.lock", "server.crt", "README.md", "/run/user/1000/bus", "/etc/ssl/certs/ca.crt",
      "compass.json", "bypass.yaml", "keyboard.kubectl", ".git/HEAD", ".git/config-notes.md", "secret.txt",
    ];
    expect(harmless.filter((name) => pathReason(name) !== null)).toEqual([]);
  });

  it("counts a repository's config as a secret to read, wherever git keeps it, and not its neighbours", () => {
    const configs = ["/r/.git/config", "/r/.GIT/config", "/r/.git/config.lock", "/r/.git/worktrees/w/config.worktree", "/r/.git/modules/sub/config", "/srv/repo.git/config", ".git/config"];
    const neighbours = ["/r/.git/HEAD", "/r/.git/refs/heads/main", "/r/.git/objects/ab/cdef", "/r/config", "/r/src/config", "/r/.github/config", "/r/.git/hooks/pre-commit"];
    expect(configs.filter((p) => repositoryConfigReason(p) === null)).toEqual([]);
    expect(neighbours.filter((p) => repositoryConfigReason(p) !== null)).toEqual([]);
  });
});

describe("secrets by content", () => {
  it("names the kind of secret the first bytes hold, and nothing for ordinary text", () => {
    expect(contentSecretReason(`url = https://oauth2:${TOKEN}@gitlab.com/g/p.git`)).toBe("its content holds what looks like a URL with credentials");
    expect(contentSecretReason(Buffer.from(`[db]\npassword = ${PASSWORD}\n`))).toBe("its content holds what looks like a password assignment");
    expect(contentSecretReason(TOKEN)).toBe("its content holds what looks like a GitLab token");
    expect(contentSecretReason("const password = input.value;\nexport {};\n")).toBeNull();
  });

  it("reads only the head of a regular file, never waits on a FIFO, and throws what it cannot read", async () => {
    const dir = await makeTempDir();
    writeFileSync(join(dir, "late.txt"), `${"x".repeat(CONTENT_HEAD_BYTES + 10)}\n${TOKEN}\n`);
    writeFileSync(join(dir, "early.txt"), `${TOKEN}\n${"x".repeat(100_000)}`);
    execFileSync("mkfifo", [join(dir, "fifo")]);
    mkdirSync(join(dir, "folder"));
    expect([fileContentSecretReason(join(dir, "late.txt")), fileContentSecretReason(join(dir, "fifo")), fileContentSecretReason(join(dir, "folder")), fileContentSecretReason(join(dir, "missing"))]).toEqual([null, null, null, null]);
    expect(fileContentSecretReason(join(dir, "early.txt"))).toMatch(/GitLab token/);
    writeFileSync(join(dir, "locked.txt"), TOKEN);
    chmodSync(join(dir, "locked.txt"), 0o000);
    // Root reads a file whatever its mode: there is nothing unreadable to show then.
    if (process.getuid?.() !== 0) expect(() => fileContentSecretReason(join(dir, "locked.txt"))).toThrow(/EACCES/);
  });
});

describe("read_file through the gate", () => {
  it("asks before reading secrets by their new names, a repository's config, and files whose content is a secret; reads their neighbours unasked", async () => {
    const cwd = await makeTempDir();
    const asked: string[] = [];
    const gate = testGate({
      mode: "default", approver: async (request) => (asked.push(request.reason), "deny_once"), approvalsPath: join(cwd, "approvals.json"), roots: [cwd], cwd, emit: () => {},
    });
    execFileSync("git", ["init", "-q"], { cwd });
    const secret = [".env~", "id_ed25519.bak", "key.pem.bak", "terraform.tfstate", ".my.cnf", ".dockercfg", "kubeconfig", "secrets.yaml", ".git/config", "notes.txt", "config/app.yml"];
    mkdirSync(join(cwd, "config"));
    writeFileSync(join(cwd, "notes.txt"), `remember ${TOKEN}\n`);
    writeFileSync(join(cwd, "config", "app.yml"), `db:\n  password: ${PASSWORD}\n`);
    writeFileSync(join(cwd, "README.md"), "# Project\nThe password field is validated on submit.\n");
    const readable = [".git/HEAD", ".git/description", "README.md", ".env.example", "id_ed25519.pub"];
    const verdicts = async (paths: string[]): Promise<boolean[]> => Promise.all(paths.map(async (p) => (await gate.checkPath(p, "read", "t")).allowed));
    expect(await verdicts(secret)).toEqual(secret.map(() => false));
    expect(await verdicts(readable)).toEqual(readable.map(() => true));
    expect(asked.slice(-2)).toEqual([
      `reads ${join(cwd, "notes.txt")}, and its content holds what looks like a GitLab token`,
      `reads ${join(cwd, "config", "app.yml")}, and its content holds what looks like a password assignment`,
    ]);
    expect(asked.join("\n")).not.toContain(TOKEN);
    // Writing is judged by name: a file whose content is a secret may be overwritten inside the roots; `.git/config` keeps its own refusal.
    expect((await gate.checkPath("notes.txt", "write", "t")).allowed).toBe(true);
    expect((await gate.checkPath(".git/config", "write", "t")).allowed).toBe(false);
    expect(asked[asked.length - 1]).toBe("writes inside a .git folder, whose hooks and config can run programs");
  });
});
