// The simulated prompt cache: writes at breakpoints, reads of earlier prefixes, the lookback, the minimum size.
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModel, type ScriptedModel, type ScriptedModelOptions } from "../../src/testing/index.js";
import { clientFor, TEST_MODEL } from "../helpers/scripted.js";

let model: ScriptedModel | undefined;
async function start(options: ScriptedModelOptions = {}): Promise<Anthropic> {
  model = await startScriptedModel([{ reply: "noted" }], options);
  return clientFor(model);
}
afterEach(async () => {
  await model?.close();
  model = undefined;
});

const ephemeral = { type: "ephemeral" } as const;
const SYSTEM = "You are Jarvis, a careful assistant. ".repeat(20);
const TOOLS: Anthropic.Tool[] = [
  { name: "read_file", description: "Reads a file.", input_schema: { type: "object", properties: { path: { type: "string" } } } },
];

function request(messages: Anthropic.MessageParam[], extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {}): Anthropic.MessageCreateParamsNonStreaming {
  return { model: TEST_MODEL, max_tokens: 512, tools: TOOLS, system: [{ type: "text", text: SYSTEM, cache_control: ephemeral }], messages, ...extra };
}

async function total(client: Anthropic, params: Anthropic.MessageCreateParamsNonStreaming): Promise<number> {
  const { max_tokens: _unused, ...rest } = params;
  return (await client.messages.countTokens(rest)).input_tokens;
}

describe("simulated prompt cache", () => {
  it("writes the prefix on the first request and reads it on the second", async () => {
    const client = await start();
    const params = request([{ role: "user", content: "hello" }]);
    const first = await client.messages.create(params);
    const second = await client.messages.create(request([{ role: "user", content: "something else" }]));
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(second.usage.cache_creation_input_tokens).toBe(0);
    const sum = first.usage.input_tokens + (first.usage.cache_creation_input_tokens ?? 0);
    expect(sum).toBe(await total(client, params));
  });

  it("finds the earlier prefix when the breakpoint moves to the newest message", async () => {
    const client = await start();
    const turn1: Anthropic.MessageParam[] = [{ role: "user", content: [{ type: "text", text: "first question", cache_control: ephemeral }] }];
    const first = await client.messages.create(request(turn1, { system: SYSTEM }));
    const turn2: Anthropic.MessageParam[] = [
      { role: "user", content: "first question" },
      { role: "assistant", content: "first answer" },
      { role: "user", content: [{ type: "text", text: "second question", cache_control: ephemeral }] },
    ];
    const params = request(turn2, { system: SYSTEM });
    const second = await client.messages.create(params);
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(second.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(second.usage.input_tokens).toBe(0);
    const usage = second.usage;
    expect(usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0)).toBe(await total(client, params));
  });

  it("misses when the prefix changes or the model differs", async () => {
    const client = await start();
    await client.messages.create(request([{ role: "user", content: "hi" }]));
    const otherSystem = await client.messages.create(request([{ role: "user", content: "hi" }], { system: [{ type: "text", text: "Other.", cache_control: ephemeral }] }));
    const otherModel = await client.messages.create(request([{ role: "user", content: "hi" }], { model: "claude-other" }));
    expect(otherSystem.usage.cache_read_input_tokens).toBe(0);
    expect(otherModel.usage.cache_read_input_tokens).toBe(0);
    expect(otherModel.model).toBe("claude-other");
  });

  it("caches nothing below cacheMinTokens", async () => {
    const client = await start({ cacheMinTokens: 1024 });
    await client.messages.create(request([{ role: "user", content: "hi" }]));
    const second = await client.messages.create(request([{ role: "user", content: "hi" }]));
    expect(second.usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
  });

  it("treats a top-level cache_control as a breakpoint on the last block", async () => {
    const client = await start();
    const params = request([{ role: "user", content: "hi" }], { system: SYSTEM, cache_control: ephemeral });
    const first = await client.messages.create(params);
    const second = await client.messages.create(params);
    expect(first.usage.input_tokens).toBe(0);
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
  });

  it("reports the same usage when streaming", async () => {
    const client = await start({ model: "claude-reported" });
    await client.messages.create(request([{ role: "user", content: "hi" }]));
    const streamed = await client.messages.stream(request([{ role: "user", content: "hi again" }])).finalMessage();
    expect(streamed.usage.cache_read_input_tokens).toBeGreaterThan(0);
    expect(streamed.model).toBe("claude-reported");
  });
});

describe("simulated prompt cache on a clock", () => {
  const hour = { type: "ephemeral", ttl: "1h" } as const;
  const at = { now: 0 };
  const clock = { now: () => at.now };
  const withTtl = (control: Anthropic.CacheControlEphemeral) => request([{ role: "user", content: "hello" }], { system: [{ type: "text", text: SYSTEM, cache_control: control }] });

  it("forgets a five-minute entry five minutes after its last read, and an hour entry after an hour", async () => {
    at.now = 0;
    const client = await start({ clock });
    const written = await client.messages.create(withTtl(ephemeral));
    at.now = 4 * 60_000;
    expect((await client.messages.create(withTtl(ephemeral))).usage.cache_read_input_tokens).toBe(written.usage.cache_creation_input_tokens);
    at.now = 8 * 60_000; // four minutes after the read that refreshed it
    expect((await client.messages.create(withTtl(ephemeral))).usage.cache_read_input_tokens).toBeGreaterThan(0);
    at.now = 14 * 60_000;
    const expired = await client.messages.create(withTtl(ephemeral));
    expect(expired.usage.cache_read_input_tokens).toBe(0);
    expect(expired.usage.cache_creation?.ephemeral_5m_input_tokens).toBe(written.usage.cache_creation_input_tokens);

    const hourly = await client.messages.create(withTtl(hour));
    expect(hourly.usage.cache_creation).toEqual({ ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: hourly.usage.cache_creation_input_tokens });
    at.now += 59 * 60_000;
    expect((await client.messages.create(withTtl(hour))).usage.cache_read_input_tokens).toBeGreaterThan(0);
    at.now += 61 * 60_000;
    expect((await client.messages.create(withTtl(hour))).usage.cache_read_input_tokens).toBe(0);
  });

  it("writes each stretch at the lifetime of the breakpoint that ends it", async () => {
    at.now = 0;
    const client = await start({ clock });
    const params = request([{ role: "user", content: [{ type: "text", text: "a question", cache_control: ephemeral }] }], { system: [{ type: "text", text: SYSTEM, cache_control: hour }] });
    const { usage } = await client.messages.create(params);
    expect(usage.cache_creation!.ephemeral_1h_input_tokens).toBeGreaterThan(0);
    expect(usage.cache_creation!.ephemeral_5m_input_tokens).toBeGreaterThan(0);
    expect(usage.cache_creation!.ephemeral_1h_input_tokens + usage.cache_creation!.ephemeral_5m_input_tokens).toBe(usage.cache_creation_input_tokens);
  });

  it("refuses a one-hour breakpoint after a five-minute one, as the API does", async () => {
    const client = await start();
    const params = request([{ role: "user", content: [{ type: "text", text: "q", cache_control: hour }] }], { system: [{ type: "text", text: SYSTEM, cache_control: ephemeral }] });
    await expect(client.messages.create(params)).rejects.toThrow(/ttl '1h' must not come after one with ttl '5m'/);
    expect(model!.rejected).toHaveLength(1);
  });
});
