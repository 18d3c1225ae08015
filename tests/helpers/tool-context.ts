// Builds a ToolContext for tool tests: real clock and spawn, a fresh AbortController, and the real permission context.
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { nodeSpawnDefault, refuseApprover, systemClock } from "../../src/deps.js";
import type { Approver } from "../../src/deps.js";
import { createGate } from "../../src/gate/gate.js";
import type { ModeHolder, PermissionMode } from "../../src/gate/context.js";
import { createCommandJudge } from "../../src/shell/index.js";
import type { ToolContext } from "../../src/tools/define.js";
import type { AgentEvent } from "../../src/types.js";
import { tempDir } from "./temp-dir.js";

export interface TestToolContext extends ToolContext {
  /** Every event the tools and the gate emitted, in order. */
  events: AgentEvent[];
  controller: AbortController;
  /** The mode the gate reads; exit_plan_mode sets it through the turn. */
  modes: ModeHolder;
}

export interface ToolContextOptions {
  /** Working directory; a fresh temp dir when absent. */
  cwd?: string;
  /** Workspace; `<cwd>/workspace` when absent. */
  workspace?: string;
  mode?: PermissionMode;
  approver?: Approver;
  env?: Record<string, string | undefined>;
  warnings?: string[];
}

/** A fresh real temp dir (realpath, so comparisons with resolved paths hold on macOS too). */
export async function makeTempDir(prefix = "miniclaw-test-"): Promise<string> {
  return realpath(await tempDir(prefix));
}

/** A ToolContext over real effects; the approver refuses unless one is given. */
export async function buildToolContext(options: ToolContextOptions = {}): Promise<TestToolContext> {
  const cwd = options.cwd ?? (await makeTempDir());
  const workspace = options.workspace ?? join(cwd, "workspace");
  const events: AgentEvent[] = [];
  const emit = (event: AgentEvent): void => {
    events.push(event);
  };
  const controller = new AbortController();
  const warnings = options.warnings;
  const modes: ModeHolder = { mode: options.mode ?? "default" };
  const gate = createGate({
    mode: modes,
    judge: createCommandJudge(),
    approver: options.approver ?? refuseApprover,
    approvalsPath: join(workspace, "exec-approvals.json"),
    roots: [cwd, workspace],
    cwd,
    emit,
    ...(warnings ? { onWarning: (message: string) => void warnings.push(message) } : {}),
  });
  return {
    cwd,
    workspace,
    signal: controller.signal,
    clock: systemClock,
    spawn: nodeSpawnDefault,
    env: options.env ?? { PATH: process.env["PATH"], HOME: process.env["HOME"] },
    emit,
    toolUseId: "toolu_test",
    gate,
    turn: {
      sessionKey: "agent:main:test",
      agentId: "main",
      delegate: () => Promise.reject(new Error("no subagents in a tool test")),
      setMode: (mode) => void (modes.mode = mode),
    },
    events,
    controller,
    modes,
  };
}
