import { describe, expect, it } from "vitest";
import { isProcessSecretPath, processSecretsReason } from "../../src/permissions/process-secrets.js";
import { buildToolContext } from "../helpers/tool-context.js";

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
    expect(await context.permissions.checkCommand("base64 /proc/$PPID/environ", "t1")).toMatchObject({ allowed: false, reason: expect.stringMatching(/Refused in every mode/) });
    expect(await context.permissions.checkPath("/proc/self/environ", "read", "t2")).toMatchObject({ allowed: false });
  });
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
