// Missing credentials: one message for every program using miniclaw; only the command line adds its own demo.
import { describe, expect, it } from "vitest";
import { describeFailure } from "../../src/cli/main.js";
import { ConfigError } from "../../src/errors.js";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { createClient } from "../../src/model/client.js";
import { readCredentials } from "../../src/model/credentials.js";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

describe("missing credentials", () => {
  it("tell a library user what to set, and not to run miniclaw's own npm script", async () => {
    const workspace = await tempDir("miniclaw-creds-");
    const agent = { id: "main", name: "M", prompt: "p" };
    const attempts: Array<() => unknown> = [
      () => readCredentials({ ANTHROPIC_API_KEY: " " }),
      () => createClient({ env: {} }),
      () => runAgentTurn("agent:main:main", "hi", agent, { runtime: { workspace, env: {} } }),
    ];
    for (const attempt of attempts) {
      const error = await Promise.resolve().then(attempt).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/ANTHROPIC_API_KEY.*ANTHROPIC_BASE_URL/);
      expect((error as Error).message).not.toMatch(/npm|demo/);
    }
  });

  it("on the command line, add how to try the demo, in the same one line", async () => {
    const run = await runMain(["run", "hi"], { env: cleanEnv(), cwd: await tempDir("miniclaw-creds-") });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^miniclaw needs credentials.*ANTHROPIC_API_KEY.* To try miniclaw without a key, run `npm run demo`.*\n$/);
    const error = await Promise.resolve().then(() => readCredentials({})).catch((e: unknown) => e);
    expect(describeFailure(error, false)).toBe(run.stderr);
  });
});
