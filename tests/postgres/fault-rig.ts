// The rig of the fault tests: a throwaway cluster behind a TCP proxy, the scripted model, and turns whose one tool injects the fault.
import { rm } from "node:fs/promises";
import Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import { openRuntime } from "../../src/runtime/open-runtime.js";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { defineTool } from "../../src/tools/define.js";
import { startScriptedModel, type ScriptedModel } from "../../src/testing/index.js";
import { openPostgres, type Postgres } from "../../src/postgres/index.js";
import type { DatabaseConfig } from "../../src/postgres/config.js";
import type { TurnResult } from "../../src/types.js";
import { TEST_AGENT } from "../helpers/turn.js";
import { startCluster, type Cluster } from "../helpers/pg-cluster.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { tempDir } from "../helpers/temp-dir.js";

/** A cluster of the test's own, a proxy in front of it, the scripted model and a workspace; `close` removes them all. */
export interface FaultRig {
  cluster: Cluster;
  proxy: TcpProxy;
  model: ScriptedModel;
  workspace: string;
  /** The cluster's URL through the proxy. */
  url: string;
  /** Opens miniclaw's PostgreSQL through the proxy (closed with the rig). */
  open(extra?: Omit<DatabaseConfig, "url">, lockTimeoutMs?: number): Promise<Postgres>;
  /** One turn on `key` with `postgres`'s sessions; a message "fault ..." calls the tool `fault`, which runs `onFault` then answers. */
  turn(postgres: Postgres, key: string, text: string): Promise<TurnResult>;
  /** What the tool `fault` does (the next fault turn runs it). */
  onFault: () => Promise<void>;
  close(): Promise<void>;
}

/** The model's script: "fault ..." asks for the tool `fault`; its result, and anything else, get a short text. */
const RULES = [
  { match: { toolResult: { name: "fault" } }, reply: "after the fault" },
  { match: /^fault/, reply: { toolUses: [{ name: "fault", input: {} }] } },
  { match: /.*/, reply: "{{user_text}} done" },
];

/** Starts a rig: a fresh cluster, a proxy to it, the model. */
export async function startFaultRig(): Promise<FaultRig> {
  const cluster = await startCluster();
  const proxy = await startTcpProxy(cluster.port);
  const model = await startScriptedModel(RULES);
  const workspace = await tempDir("miniclaw-faults-");
  const opened: Postgres[] = [];
  const client = new Anthropic({ apiKey: "test", baseURL: model.baseURL, maxRetries: 0 });
  const rig: FaultRig = {
    cluster,
    proxy,
    model,
    workspace,
    url: proxy.via(cluster.url),
    onFault: async () => {},
    async open(extra = {}, lockTimeoutMs) {
      const postgres = await openPostgres({ url: rig.url, schema: "miniclaw", ...extra }, lockTimeoutMs === undefined ? {} : { lockTimeoutMs });
      opened.push(postgres);
      return postgres;
    },
    async turn(postgres, key, text) {
      const fault = defineTool({ name: "fault", description: "Injects the fault.", input: z.object({}), readOnly: true, run: async () => (await rig.onFault(), "injected") });
      const runtime = await openRuntime({ workspace, cwd: workspace, client, builtinTools: false, includeTime: false, store: postgres.sessions });
      return runAgentTurn(key, text, TEST_AGENT, { runtime, model: "claude-test-1", tools: [fault] });
    },
    async close() {
      await Promise.allSettled(opened.map((p) => p.close()));
      await proxy.close();
      await model.close();
      await cluster.destroy();
      await rm(workspace, { recursive: true, force: true });
    },
  };
  return rig;
}

/** The roles and texts of a session's messages, for comparing what was stored. */
/** A rig for one test of a concurrent suite, closed when that test finishes. */
export async function rigFor(onTestFinished: (fn: () => Promise<void>) => void): Promise<FaultRig> {
  const started = await startFaultRig();
  onTestFinished(() => started.close());
  return started;
}

export function transcript(messages: Array<{ role: string; content: unknown }>): string[] {
  return messages.map((m) => `${m.role}: ${typeof m.content === "string" ? m.content : (m.content as Array<{ type: string; text?: string; is_error?: boolean }>).map((b) => (b.type === "text" ? b.text : b.is_error ? `${b.type}!` : b.type)).join(",")}`);
}
