import { describe, expect, it } from "vitest";
import { isProcessSecretPath } from "../../src/gate/secret-paths.js";
import { processSecretsReason } from "../../src/shell/process-secrets.js";
import { buildToolContext } from "../helpers/tool-context.js";
import { checkCommand, checkPath } from "../tools/gated-run.js";

describe("process environments are refused in every mode", () => {
  it.each(["base64 -w0 /proc/$PPID/environ", "cat /proc/self/environ", "rev < /proc/1/environ", "cat /proc/1/cmdline", "ps eww", "ps auxe", "ls; ps -p 1 e"])(
    "refuses %s",
    (command) => expect(processSecretsReason(command)).not.toBeNull(),
  );

  it.each(["cat /proc/cpuinfo", "cat /proc/loadavg", "ps aux", "ps -ef", "git log"])("lets %s through to the normal gate", (command) =>
    expect(processSecretsReason(command)).toBeNull(),
  );

  it("refuses /proc paths for the file tools but not harmless ones", () => {
    expect(isProcessSecretPath("/proc/123/environ")).toBe(true);
    expect(isProcessSecretPath("/proc/cpuinfo")).toBe(false);
    expect(isProcessSecretPath("/home/user/proc/environ")).toBe(false);
  });

  it("refuses even in bypassPermissions, for commands and file reads", async () => {
    const context = await buildToolContext({ mode: "bypassPermissions" });
    expect(await checkCommand(context, "base64 /proc/$PPID/environ", "t1")).toMatchObject({ allowed: false, reason: expect.stringMatching(/Refused in every mode/) });
    expect(await checkPath(context, "/proc/self/environ", "read", "t2")).toMatchObject({ allowed: false });
  });
});

describe("a quoted or escaped brace, which bash keeps literal, does not hide /proc in a brace group", () => {
  it.each([
    `cat /{proc,"}"}/$PPID/environ`,
    "cat /{proc,\\}}/self/environ",
    "cat /{proc,'}'}/self/environ",
    `cat /{"}",proc}/self/environ`,
    "cat /{proc,$'\\x7d'}/self/environ",
    `tr "\\0" "\\n" < /{proc,"}"}/$PPID/environ`,
    `cd /{proc,"}"}/$PPID && cat environ`,
    `grep -r KEY /{proc,"}"}`,
    `cat /{proc,"a,b"}/self/environ`,
    "cat /{proc,x\\,y}/self/environ",
    `cat /{"{",proc}/self/environ`,
    `ls | cat /{pro"c",x}/1/environ`,
  ])("refuses %s", (command) => expect(processSecretsReason(command)).not.toBeNull());

  it.each([`echo "{a,b}"`, "echo \\{a,b\\}", "awk '/{/' notes.txt"])("reads %s's quoted braces as text, not a path into /proc", (command) =>
    expect(processSecretsReason(command)).toBeNull(),
  );
});

describe("spellings of /proc and searches that reach it", () => {
  it.each([
    "grep -raoh --include='*viron' 'sk-ant' /proc",
    "grep -r x //proc",
    "grep -r x /./proc",
    "grep -r x /pro*",
    "rg -a x /proc",
    "grep -R x /",
    "rg x /",
    "cat /proc/",
  ])("refuses %s", (command) => expect(processSecretsReason(command)).not.toBeNull());

  it.each(["ls /", "grep -r x .", "cat /etc/hostname", "rg foo src"])("lets %s through", (command) => expect(processSecretsReason(command)).toBeNull());
});

describe("words resolved as bash will before the /proc test", () => {
  const where = { cwd: "/srv/work/project", home: "/srv/home/me" };

  it.each([
    "base64 -w0 ../../../proc/$PPID/environ",
    "cat ../../../../../../proc/self/status",
    "cd / && grep -ra KEY proc",
    "cd /; cat proc/1/environ",
    "cd /srv && cd ../proc && cat self/status",
    "pushd / && cat proc/self/status",
    "cd - && cat proc/self/status",
    "cat ~/../../../proc/self/status",
    "cat ~root/../proc/self/status",
    "cat /pr'o'c/self/status",
    "cat /pr\\oc/self/status",
    "cat /{proc,x}/self/status",
    "cat $'\\x2fproc/self/status'",
    "cat $'\\057proc'/self/status",
    "cat /$D/self/status",
    "cat ../../../../pro*/self/status",
    "echo \"$(cat /proc/self/status)\"",
    "x=$(cat ../../../proc/1/environ) true",
    "true; grep -r KEY /",
    "ls && grep -r KEY ../../..",
    "cd / && grep -r KEY .",
    "echo \"$(grep -r ';' //)\"",
    "cat <(rg KEY /)",
    "/usr/bin/grep -r KEY /.",
  ])("refuses %s from a known folder", (command) => expect(processSecretsReason(command, where)).not.toBeNull());

  it.each(["ls /", "grep -r x .", "grep -r x ..", "cat ../../../etc/hostname", "cd src && grep -r x .", "cat proc/notes.txt", "echo {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"])(
    "lets %s through from a known folder",
    (command) => expect(processSecretsReason(command, where)).toBeNull(),
  );

  it("assumes a chain of .. may reach / when the folder is not known", () => {
    expect(processSecretsReason("cat ../../x/../../proc/self/status")).not.toBeNull();
    expect(processSecretsReason("grep -r KEY ../..")).not.toBeNull();
    expect(processSecretsReason("grep -r KEY ../..", where)).toBeNull();
  });

  it("refuses a relative /proc path in bypassPermissions, from the gate's real folder", async () => {
    const context = await buildToolContext({ mode: "bypassPermissions" });
    const depth = context.cwd.split("/").length;
    const up = "../".repeat(depth);
    for (const command of [`base64 -w0 ${up}proc/$PPID/environ`, `cat ${up}proc/self/status`, `cd ${up} && grep -ra KEY proc`]) {
      expect(await checkCommand(context, command, "t")).toMatchObject({ allowed: false, reason: expect.stringMatching(/Refused in every mode/) });
    }
  });
});
