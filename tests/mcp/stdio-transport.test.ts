// The stdio transport through the official MCP client against the fixture server: tools, environment, start failures, and no process left behind.
import { spawn } from "node:child_process";
import { chmod, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { registeredGroups, watchdogPid } from "../../src/mcp/reaper.js";
import { STDERR_TAIL_BYTES, StdioTransport, type StdioServerParams } from "../../src/mcp/stdio-transport.js";
import { ALL_TOOLS, FAIL_TEXT, PNG_BASE64 } from "../fixtures/mcp/tools.mjs";
import { isAlive, processesOf, stdioFixture, waitForGroupsGone } from "../helpers/mcp.js";
import { tempDir } from "../helpers/temp-dir.js";

const OWNER = fileURLToPath(new URL("../fixtures/mcp/stdio-owner.mjs", import.meta.url));
const PATH_ONLY = { PATH: process.env["PATH"] ?? "" };

const open: StdioTransport[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
  // The reaper is back as it began: no group listed, no watchdog.
  expect(registeredGroups()).toEqual([]);
  expect(watchdogPid()).toBeUndefined();
});

function transport(params: Partial<StdioServerParams> = {}): StdioTransport {
  const t = new StdioTransport({ ...stdioFixture(), env: PATH_ONLY, ...params });
  open.push(t);
  return t;
}

async function connect(t = transport(), options: ConstructorParameters<typeof Client>[1] = {}): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" }, options);
  await client.connect(t);
  return client;
}

/** Records when the transport closes, keeping the client's own handler (set by connect). */
function watchClose(t: StdioTransport): string[] {
  const seen: string[] = [];
  const clients = t.onclose;
  t.onclose = () => {
    seen.push("onclose");
    clients?.();
  };
  return seen;
}

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>): unknown => (result.content as Array<{ text?: string }>)[0]?.text;

describe("StdioTransport", () => {
  it("connects through the official client, lists the fixture's tools in order and calls echo", async () => {
    const t = transport();
    const client = await connect(t);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(ALL_TOOLS);
    expect(await client.callTool({ name: "echo", arguments: { text: "hello" } })).toEqual({ content: [{ type: "text", text: "hello" }] });
    expect(registeredGroups()).toEqual([t.pid]);
    expect(isAlive(watchdogPid()!)).toBe(true);
    expect(t.stderrTail).toBe("fixture server fixture started\n");
    await client.close();
  });

  it("answers with the fixture's image, isError and sum, and announces a tool added at run time", async () => {
    let announced: (names: string[]) => void;
    const changed = new Promise<string[]>((resolve) => (announced = resolve));
    const client = await connect(transport(), { listChanged: { tools: { debounceMs: 0, onChanged: (_error, tools) => announced(tools?.map((tool) => tool.name) ?? []) } } });
    expect((await client.callTool({ name: "image", arguments: {} })).content).toEqual([{ type: "image", data: PNG_BASE64, mimeType: "image/png" }]);
    expect(await client.callTool({ name: "fail", arguments: {} })).toEqual({ content: [{ type: "text", text: FAIL_TEXT }], isError: true });
    expect(textOf(await client.callTool({ name: "add", arguments: { a: 2, b: 40 } }))).toBe("42");
    expect(textOf(await client.callTool({ name: "add_tool", arguments: { name: "late" } }))).toBe("added late");
    expect(await changed).toEqual([...ALL_TOOLS, "late"]);
    expect(textOf(await client.callTool({ name: "late", arguments: {} }))).toBe("late called");
  });

  it("close kills the whole process group, the server's own child too, and resolves once it is gone", async () => {
    const t = transport();
    const client = await connect(t);
    const grandchild = Number(textOf(await client.callTool({ name: "spawn_child", arguments: {} })));
    expect(processesOf(t.pid!).map((p) => p.pid).sort()).toEqual([t.pid, grandchild].sort());
    const seen = watchClose(t);
    await client.close();
    expect(seen).toEqual(["onclose"]);
    expect(t.exit).toEqual({ code: null, signal: "SIGTERM" });
    expect(processesOf(t.pid!)).toEqual([]);
    expect(isAlive(grandchild)).toBe(false);
  });

  it("fires onclose once when the server exits on its own, says how, and kills what it left", async () => {
    const t = transport();
    const client = await connect(t);
    const grandchild = Number(textOf(await client.callTool({ name: "spawn_child", arguments: {} })));
    const seen = watchClose(t);
    await expect(client.callTool({ name: "crash", arguments: {} })).rejects.toThrow(/closed/i);
    expect(seen).toEqual(["onclose"]);
    expect(t.exit).toEqual({ code: 3, signal: null });
    expect(t.stderrTail).toContain("crash: exiting mid-call");
    expect(isAlive(grandchild)).toBe(false);
    await expect(t.send({ jsonrpc: "2.0", method: "notifications/initialized" })).rejects.toThrow("Not connected");
    await t.close();
    expect(seen).toEqual(["onclose"]);
  });

  it("sees a server that never starts exit with its reason on stderr", async () => {
    const t = transport(stdioFixture("--name", "broken", "--never-start"));
    await expect(connect(t)).rejects.toThrow(/closed/i);
    expect(t.exit).toEqual({ code: 1, signal: null });
    expect(t.stderrTail).toBe("fixture server broken: refusing to start (--never-start)\n");
  });

  it(`keeps only the last ${STDERR_TAIL_BYTES} bytes of stderr`, async () => {
    const t = transport({ command: "sh", args: ["-c", "head -c 10000 /dev/zero | tr '\\0' x >&2; echo END >&2"] });
    const closed = new Promise<void>((resolve) => (t.onclose = resolve));
    await t.start();
    await closed;
    expect(t.stderrTail).toBe(`${"x".repeat(STDERR_TAIL_BYTES - 4)}END\n`);
  });

  it("rejects start with one line naming a command that is missing, not executable, or given a missing folder", async () => {
    const dir = await tempDir("miniclaw-mcp-");
    try {
      const script = join(dir, "server.sh");
      await writeFile(script, "#!/bin/sh\n");
      await chmod(script, 0o644);
      await expect(connect(transport({ command: "no-such-mcp-server", args: [] }))).rejects.toThrow(/^could not start MCP server command "no-such-mcp-server": command not found \(ENOENT\)$/);
      await expect(transport({ command: script, args: [] }).start()).rejects.toThrow(`could not start MCP server command "${script}": permission denied (EACCES)`);
      await expect(transport({ cwd: join(dir, "gone") }).start()).rejects.toThrow(`: working directory ${join(dir, "gone")} does not exist (ENOENT)`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("gives the server exactly the environment it is given, nothing of this process's", async () => {
    process.env["MINICLAW_TEST_NOT_GIVEN"] = "visible-only-here";
    try {
      const client = await connect(transport({ env: { ...PATH_ONLY, GIVEN: "given-value" } }));
      const read = async (name: string): Promise<unknown> => textOf(await client.callTool({ name: "env", arguments: { name } }));
      expect([await read("GIVEN"), await read("MINICLAW_TEST_NOT_GIVEN"), await read("HOME")]).toEqual(["given-value", "(unset)", "(unset)"]);
    } finally {
      delete process.env["MINICLAW_TEST_NOT_GIVEN"];
    }
  });
});

interface OwnerPids {
  server: number;
  grandchild: number;
  watchdog: number;
}

interface OwnerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Starts stdio-owner.mjs in `mode`; resolves with the pids it prints, and its exit to come. */
async function startOwner(mode: string): Promise<{ pids: OwnerPids; kill: (signal: NodeJS.Signals) => void; exited: Promise<OwnerExit> }> {
  const child = spawn(process.execPath, [OWNER, mode], { env: PATH_ONLY, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<OwnerExit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  let out = "";
  let err = "";
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const pids = await new Promise<OwnerPids>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve(JSON.parse(out) as OwnerPids);
    });
    void exited.then(() => reject(new Error(`stdio-owner exited before it was ready: ${err}`)));
  });
  return { pids, kill: (signal) => child.kill(signal), exited };
}

async function waitUntilDead(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return !isAlive(pid);
}

describe("no MCP server outlives miniclaw", () => {
  it.each([
    ["SIGKILL", "wait", { code: null, signal: "SIGKILL" }],
    ["SIGTERM", "wait", { code: null, signal: "SIGTERM" }],
    ["SIGINT", "wait", { code: null, signal: "SIGINT" }],
  ] as const)("the watchdog kills the group after a %s of its owner (Node's default handling: no exit hook runs)", async (signal, mode, exit) => {
    const owner = await startOwner(mode);
    expect(processesOf(owner.pids.server).length).toBe(2);
    owner.kill(signal);
    expect(await owner.exited).toEqual(exit);
    expect(await waitForGroupsGone([owner.pids.server])).toEqual([]);
    expect(isAlive(owner.pids.grandchild)).toBe(false);
    expect(await waitUntilDead(owner.pids.watchdog)).toBe(true);
  });

  it.each([
    ["SIGTERM", "handle-signals", { code: 143, signal: null }],
    ["SIGINT", "handle-signals", { code: 130, signal: null }],
    ["SIGUSR2", "throw-on-usr2", { code: 1, signal: null }],
  ] as const)("the exit hook alone kills the group when the owner exits on %s in mode %s", async (signal, mode, exit) => {
    const owner = await startOwner(mode);
    // Without its watchdog, only the exit hook can do it.
    process.kill(owner.pids.watchdog, "SIGKILL");
    expect(await waitUntilDead(owner.pids.watchdog)).toBe(true);
    owner.kill(signal);
    expect(await owner.exited).toEqual(exit);
    expect(await waitForGroupsGone([owner.pids.server])).toEqual([]);
    expect(isAlive(owner.pids.grandchild)).toBe(false);
  });
});
