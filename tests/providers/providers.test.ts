import { afterEach, describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { createClient } from "../../src/providers/index.js";
import { startProviderModel, type ProviderModel, type Rule, type WireProvider } from "../../src/testing/index.js";
import type { AgentEvent } from "../../src/types.js";
import { verifySigV4 } from "../helpers/sigv4.js";
import { eventTypes, TEST_AGENT, tempWorkspace, turnOptions, upperTool } from "../helpers/turn.js";

const TOOL_TURN: Rule[] = [
  { match: { userText: "shout" }, reply: { toolUses: [{ name: "upper", input: { text: "hello" } }] } },
  { match: { toolResult: { content: "HELLO" } }, reply: { text: "Done: {{tool_result}}" } },
];

let server: ProviderModel | undefined;
afterEach(async () => {
  // Every request the provider passed on was a valid Messages API request.
  expect(server?.model.rejected ?? []).toEqual([]);
  await server?.close();
  server = undefined;
});

/** A whole tool-using turn through the provider's own SDK client against its wire format; the provider-side requests. */
async function toolTurn(provider: WireProvider, envOf: (baseURL: string) => Record<string, string>, model = "claude-sonnet-4-5") {
  server = await startProviderModel(provider, TOOL_TURN);
  const warnings: string[] = [];
  const client = await createClient({ provider, env: envOf(server.baseURL), maxRetries: 0, onWarning: (line) => warnings.push(line) });
  const events: AgentEvent[] = [];
  const calls: string[] = [];
  const result = await runAgentTurn("agent:main:main", "shout please", TEST_AGENT, turnOptions(server.model, await tempWorkspace(), events, { client, model, tools: [upperTool(calls)] }));
  expect(result.stopReason).toBe("end_turn");
  expect(result.text).toBe("Done: HELLO");
  expect(calls).toEqual(["hello"]);
  expect(eventTypes(events)).toEqual(["turn_start", "request_start", "usage", "tool_call", "tool_result", "request_start", "text_delta", "usage", "turn_end"]);
  expect(server.requests).toHaveLength(2);
  const bodies = server.requests.map((r) => JSON.parse(r.rawBody) as Record<string, unknown>);
  return { requests: server.requests, bodies, forwarded: server.model.requests, warnings };
}

describe("providers", () => {
  it("runs a tool-using turn on Bedrock: SigV4-signed invoke-with-response-stream answered with the AWS event stream", async () => {
    const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    const env = (baseURL: string) => ({ AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: secret, AWS_REGION: "eu-west-3", ANTHROPIC_BEDROCK_BASE_URL: baseURL });
    const { requests, bodies, forwarded } = await toolTurn("bedrock", env);
    for (const request of requests) {
      expect(request.method).toBe("POST");
      expect(decodeURIComponent(request.path)).toBe("/model/global.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream");
      const signature = verifySigV4(request, secret);
      expect(signature).toMatchObject({ valid: true, accessKey: "AKIDEXAMPLE", region: "eu-west-3", service: "bedrock" });
      expect(signature.signedHeaders).toEqual(expect.arrayContaining(["host", "x-amz-date"]));
      expect(request.headers["x-api-key"]).toBeUndefined();
    }
    // Bedrock takes the version in the body, and the model and streaming from the path.
    expect(bodies[0]).toMatchObject({ anthropic_version: expect.any(String) });
    expect(bodies.every((body) => !("model" in body) && !("stream" in body))).toBe(true);
    expect(forwarded[1]!.body.messages).toHaveLength(3);
  });

  it("refuses a Bedrock request signed with another secret (the check is real)", async () => {
    const env = (baseURL: string) => ({ AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: "one-secret", ANTHROPIC_BEDROCK_BASE_URL: baseURL });
    const { requests } = await toolTurn("bedrock", env);
    expect(verifySigV4(requests[0]!, "another-secret").valid).toBe(false);
    expect(verifySigV4(requests[0]!, "one-secret")).toMatchObject({ valid: true, region: "us-east-1" });
  });

  it("runs a tool-using turn on Vertex AI: streamRawPredict behind a gateway, its bearer token and no Google credentials", async () => {
    const env = (baseURL: string) => ({
      CLOUD_ML_REGION: "us-east5", ANTHROPIC_VERTEX_PROJECT_ID: "my-project", ANTHROPIC_VERTEX_BASE_URL: `${baseURL}/v1`,
      MINICLAW_SKIP_PROVIDER_AUTH: "1", ANTHROPIC_AUTH_TOKEN: "gateway-token",
    });
    const { requests, bodies } = await toolTurn("vertex", env);
    for (const request of requests) {
      expect(request.path).toBe("/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict");
      expect(request.headers["authorization"]).toBe("Bearer gateway-token");
      expect(request.headers["x-api-key"]).toBeUndefined();
    }
    expect(bodies[0]).toMatchObject({ anthropic_version: expect.any(String), stream: true });
    expect("model" in bodies[0]!).toBe(false);
  });

  it("runs a tool-using turn on Microsoft Foundry: its endpoint with its api-key header, the model as the API names it", async () => {
    const env = (baseURL: string) => ({ ANTHROPIC_FOUNDRY_BASE_URL: `${baseURL}/anthropic`, ANTHROPIC_FOUNDRY_API_KEY: "foundry-key", ANTHROPIC_API_KEY: "not-this-one" });
    const { requests, bodies } = await toolTurn("foundry", env, "claude-sonnet-5-5");
    for (const request of requests) {
      expect(request.path).toBe("/anthropic/v1/messages");
      expect(request.headers["x-api-key"]).toBe("foundry-key");
      expect(request.headers["authorization"]).toBeUndefined();
    }
    expect(bodies[0]).toMatchObject({ model: "claude-sonnet-5-5", stream: true });
  });

  it("sends no provider credentials behind a gateway: Bedrock unsigned, Foundry without its key", async () => {
    const bedrock = await toolTurn("bedrock", (baseURL) => ({ ANTHROPIC_BEDROCK_BASE_URL: baseURL, AWS_ACCESS_KEY_ID: "AKID", AWS_SECRET_ACCESS_KEY: "s", MINICLAW_SKIP_PROVIDER_AUTH: "1" }));
    expect(bedrock.requests.map((r) => r.headers["authorization"] ?? "none")).toEqual(["none", "none"]);
    await server?.close();
    server = undefined;
    const foundry = await toolTurn("foundry", (baseURL) => ({ ANTHROPIC_FOUNDRY_BASE_URL: baseURL, MINICLAW_SKIP_PROVIDER_AUTH: "1" }));
    expect(foundry.requests.map((r) => r.headers["x-api-key"] ?? "none")).toEqual(["none", "none"]);
  });
});
