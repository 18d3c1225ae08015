// `miniclaw run` with OTEL_EXPORTER_OTLP_ENDPOINT set: the turn's spans reach an OTLP/HTTP receiver as JSON, without message text.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModel } from "../../src/testing/index.js";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

describe("miniclaw run with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("exports the turn and its request as spans before it exits", async () => {
    const received: Array<{ path: string; body: string }> = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        received.push({ path: req.url ?? "", body: Buffer.concat(chunks).toString("utf8") });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const model = await startScriptedModel([{ reply: "The answer is forty-two." }]);
    try {
      const dir = await tempDir("miniclaw-otel-");
      const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x", OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
      const run = await runMain(["run", "--workspace", join(dir, "ws"), "what is the question?"], { env, cwd: dir });
      expect(run.code).toBe(0);
      expect(received.map((r) => r.path)).toEqual(["/v1/traces"]);
      const spans = (JSON.parse(received[0]!.body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string }> }> }> }).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
      // The SDK records its own span of each request (anthropic.messages.create) once a provider is registered.
      expect(spans.map((s) => s.name).sort()).toEqual(["anthropic.messages.create", "chat claude-sonnet-5-5", "invoke_agent main"]);
      expect(received[0]!.body).not.toMatch(/forty-two|what is the question/);
    } finally {
      await model.close();
      receiver.close();
    }
  });
});
