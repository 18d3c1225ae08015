// The set-up of the CLI's MCP tests: a temp workspace whose mcp.json names the stdio fixture under a unique name, and that fixture's processes found by it.
import { randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { McpServerCommon, McpStdioConfig } from "../../src/mcp/config.js";
import { ensureWorkspace } from "../../src/runtime/workspace.js";
import { stdioFixture } from "../helpers/mcp.js";
import { tempDir } from "../helpers/temp-dir.js";

/** A temp folder holding `ws/`, a workspace. */
export interface McpWorkspace {
  dir: string;
  workspace: string;
}

/** A temp folder with `ws/`, a workspace from the templates, whose mcp.json holds `servers` (no mcp.json when undefined). */
export async function mcpWorkspace(servers: Record<string, unknown> | undefined): Promise<McpWorkspace> {
  const dir = await tempDir("miniclaw-mcp-cli-");
  const workspace = join(dir, "ws");
  await ensureWorkspace(workspace);
  if (servers !== undefined) await writeFile(join(workspace, "mcp.json"), JSON.stringify({ mcpServers: servers }, null, 2));
  return { dir, workspace };
}

/** A name no other test's server has, so its processes can be told apart in a listing of the whole machine. */
export function uniqueServerName(): string {
  return `fx${randomBytes(4).toString("hex")}`;
}

/** An mcp.json entry starting the stdio fixture as `name` (its `--name`), with `flags` and any other fields. */
export function fixtureEntry(name: string, extra: McpServerCommon = {}, ...flags: string[]): McpStdioConfig {
  const { command, args } = stdioFixture("--name", name, ...flags);
  return { command, args, ...extra };
}

/** A live process of a fixture server. */
export interface FixtureProcess {
  pid: number;
  pgid: number;
  ppid: number;
}

/** The live (not zombie) fixture servers started as `name`. */
export function fixtureProcesses(name: string): FixtureProcess[] {
  const out = execFileSync("ps", ["-eo", "pid=,pgid=,ppid=,stat=,args="], { encoding: "utf8" });
  return out.split("\n").flatMap((line) => {
    const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (!match || match[4]!.startsWith("Z") || !match[5]!.includes(`--name ${name}`)) return [];
    return [{ pid: Number(match[1]), pgid: Number(match[2]), ppid: Number(match[3]) }];
  });
}

/** Polls until a fixture server named `name` runs; resolves to it. */
export async function waitForFixture(name: string, timeoutMs = 10_000): Promise<FixtureProcess> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = fixtureProcesses(name)[0];
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no fixture server "${name}" started within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
