// Prefix routing: what reaches which agent, and what is left alone for the REPL.
import { describe, expect, it } from "vitest";
import { resolveAgent } from "../../src/assistant/routing.js";
import { findAgentByPrefix, parseSlashCommand } from "../../src/cli/slash-commands.js";
import type { AgentConfig } from "../../src/types.js";

const agents: Record<string, AgentConfig> = {
  main: { id: "main", name: "Jarvis", prompt: "You are Jarvis." },
  researcher: { id: "researcher", name: "Scout", prompt: "You are Scout.", prefix: "/research" },
};

describe("resolveAgent", () => {
  it("routes a prefixed message to its agent with the prefix and the space removed", () => {
    expect(resolveAgent("/research what changed in Rust async?", agents)).toEqual(["researcher", "what changed in Rust async?"]);
  });

  it("removes only the white space after the prefix and keeps the rest of the text as written", () => {
    expect(resolveAgent("/research   two  spaces inside  ", agents)).toEqual(["researcher", "two  spaces inside  "]);
    expect(resolveAgent("/research\nfirst line\nsecond", agents)).toEqual(["researcher", "first line\nsecond"]);
  });

  it("does not route the prefix alone, or followed only by white space", () => {
    expect(resolveAgent("/research", agents)).toEqual(["main", "/research"]);
    expect(resolveAgent("/research   ", agents)).toEqual(["main", "/research   "]);
  });

  it("does not route a longer word that starts with the prefix", () => {
    expect(resolveAgent("/researchers are people", agents)).toEqual(["main", "/researchers are people"]);
  });

  it("leaves unknown commands, mid-text prefixes, other cases and plain text unchanged", () => {
    for (const text of ["/unknown thing", "please /research this", " /research leading space", "/Research caps", "hello", ""]) {
      expect(resolveAgent(text, agents)).toEqual(["main", text]);
    }
  });

  it("falls back to the given default agent", () => {
    expect(resolveAgent("hi", agents, "researcher")).toEqual(["researcher", "hi"]);
  });
});

describe("parseSlashCommand", () => {
  it("splits a command into its name and arguments", () => {
    expect(parseSlashCommand("/help")).toEqual({ name: "help", args: "" });
    expect(parseSlashCommand("/model  claude-opus ")).toEqual({ name: "model", args: "claude-opus" });
  });

  it("does not take paths or plain text for commands", () => {
    expect(parseSlashCommand("/usr/bin/env is missing")).toBeUndefined();
    expect(parseSlashCommand("hello /help")).toBeUndefined();
    expect(parseSlashCommand("/")).toBeUndefined();
  });

  it("finds the agent a bare prefix belongs to", () => {
    expect(findAgentByPrefix("research", agents)?.id).toBe("researcher");
    expect(findAgentByPrefix("/research", agents)?.id).toBe("researcher");
    expect(findAgentByPrefix("help", agents)).toBeUndefined();
  });
});
