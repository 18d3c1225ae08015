import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createClient, loadSdk, missingPackageMessage, providerModel, readProvider, shapeBody } from "../../src/providers/index.js";
import { openRuntime } from "../../src/runtime/open-runtime.js";
import { startProviderModel } from "../../src/testing/index.js";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

describe("provider settings", () => {
  it("spells models each provider's way, and leaves a provider's own spelling and MINICLAW_MODEL as written", () => {
    expect(providerModel("bedrock", "claude-sonnet-4-5")).toBe("global.anthropic.claude-sonnet-4-5-20250929-v1:0");
    expect(providerModel("bedrock", "claude-haiku-4-5-20251001")).toBe("global.anthropic.claude-haiku-4-5-20251001-v1:0");
    expect(providerModel("bedrock", "claude-sonnet-5-5")).toBe("global.anthropic.claude-sonnet-5-5");
    expect(providerModel("bedrock", "us.anthropic.claude-opus-4-1-20250805-v1:0")).toBe("us.anthropic.claude-opus-4-1-20250805-v1:0");
    expect(providerModel("bedrock", "arn:aws:bedrock:us-east-1:123:application-inference-profile/abc")).toBe("arn:aws:bedrock:us-east-1:123:application-inference-profile/abc");
    expect(providerModel("bedrock", "claude-sonnet-4-5", "claude-sonnet-4-5")).toBe("claude-sonnet-4-5");
    expect(providerModel("vertex", "claude-sonnet-4-5")).toBe("claude-sonnet-4-5@20250929");
    expect(providerModel("vertex", "claude-opus-4-1-20250805")).toBe("claude-opus-4-1@20250805");
    expect(providerModel("vertex", "claude-sonnet-5-5")).toBe("claude-sonnet-5-5");
    expect(providerModel("foundry", "claude-sonnet-4-5")).toBe("claude-sonnet-4-5");
    expect(providerModel("anthropic", "claude-sonnet-4-5")).toBe("claude-sonnet-4-5");
  });

  it("leaves out the server tools a provider lacks, and a tool choice that named one", () => {
    const tools = [{ name: "upper", input_schema: {} }, { type: "web_search_20260318", name: "web_search" }, { type: "web_fetch_20260318", name: "web_fetch" }];
    const bedrock = shapeBody("bedrock", { model: "claude-sonnet-5-5", tools, tool_choice: { type: "tool", name: "web_search" } });
    expect(bedrock.leftOut).toEqual(["web_search", "web_fetch"]);
    expect(bedrock.body).toEqual({ model: "global.anthropic.claude-sonnet-5-5", tools: [tools[0]] });
    expect(shapeBody("vertex", { tools }).leftOut).toEqual(["web_fetch"]);
    expect(shapeBody("foundry", { tools })).toEqual({ body: { tools }, leftOut: [] });
  });

  it("reads the provider from --provider or MINICLAW_PROVIDER, refusing another name in one line", () => {
    expect(readProvider({})).toBe("anthropic");
    expect(readProvider({ MINICLAW_PROVIDER: " Bedrock " })).toBe("bedrock");
    expect(readProvider({ MINICLAW_PROVIDER: "bedrock" }, "vertex")).toBe("vertex");
    expect(() => readProvider({ MINICLAW_PROVIDER: "azure" })).toThrow('MINICLAW_PROVIDER must be one of anthropic, bedrock, vertex, foundry, got "azure"');
  });

  it("names the package to install when a provider's SDK is missing", async () => {
    const missing = Object.assign(new Error("Cannot find package '@anthropic-ai/vertex-sdk' imported from x"), { code: "ERR_MODULE_NOT_FOUND" });
    await expect(loadSdk("vertex", () => Promise.reject(missing))).rejects.toThrow("MINICLAW_PROVIDER=vertex needs the package @anthropic-ai/vertex-sdk, which is not installed: run npm install @anthropic-ai/vertex-sdk");
    expect(missingPackageMessage("bedrock")).toMatch(/npm install @anthropic-ai\/bedrock-sdk$/);
  });

  it("says in one line which setting a provider lacks", async () => {
    await expect(createClient({ provider: "vertex", env: {} })).rejects.toThrow(/^MINICLAW_PROVIDER=vertex needs CLOUD_ML_REGION/);
    await expect(createClient({ provider: "foundry", env: { ANTHROPIC_FOUNDRY_RESOURCE: "r" } })).rejects.toThrow(/needs ANTHROPIC_FOUNDRY_API_KEY/);
    await expect(openRuntime({ env: { MINICLAW_PROVIDER: "bedrock" }, workspace: await tempDir("miniclaw-") })).rejects.toThrow(/from miniclaw\/providers/);
  });

  it("runs `miniclaw run --provider bedrock` with the AWS keys of the environment", async () => {
    const server = await startProviderModel("bedrock", [{ match: "hello", reply: "Hello from Bedrock" }]);
    try {
      const dir = await tempDir("miniclaw-cli-");
      const env = cleanEnv({ ANTHROPIC_BEDROCK_BASE_URL: server.baseURL, AWS_ACCESS_KEY_ID: "AKID", AWS_SECRET_ACCESS_KEY: "secret", AWS_REGION: "us-west-2" });
      const run = await runMain(["run", "--provider", "bedrock", "--workspace", join(dir, "ws"), "hello"], { env, cwd: dir });
      expect(run.stderr).not.toMatch(/ANTHROPIC_API_KEY/);
      expect(run.stdout).toBe("Hello from Bedrock\n");
      expect(run.code).toBe(0);
      expect(server.requests[0]!.path).toMatch(/^\/model\/global\.anthropic\.claude-[a-z0-9-]+\/invoke-with-response-stream$/);
      expect(server.requests[0]!.headers["authorization"]).toMatch(/^AWS4-HMAC-SHA256 Credential=AKID\/\d{8}\/us-west-2\/bedrock\//);
      const bad = await runMain(["run", "--provider", "azure", "hello"], { env, cwd: dir });
      expect([bad.code, bad.stderr]).toEqual([1, "--provider must be one of: anthropic, bedrock, vertex, foundry\n"]);
    } finally {
      expect(server.model.rejected).toEqual([]);
      await server.close();
    }
  });
});

describe("provider prices", () => {
  it("prices a Bedrock or Vertex id as the API's model", async () => {
    const { estimateCostUsd } = await import("../../src/model/usage.js");
    const usage = { inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    expect(estimateCostUsd("global.anthropic.claude-opus-4-5-20251101-v1:0", usage)).toBe(estimateCostUsd("claude-opus-4-5", usage));
    expect(estimateCostUsd("anthropic.claude-haiku-4-5-20251001-v1:0", usage)).toBe(1);
    expect(estimateCostUsd("claude-haiku-4-5@20251001", usage)).toBe(1);
  });
});
