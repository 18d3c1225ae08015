import { describe, expect, it } from "vitest";
import { parseCliArgs, turnFlags } from "../../src/cli/args.js";
import { ConfigError } from "../../src/errors.js";
import { runMain } from "../helpers/cli.js";

/** The ConfigError message `argv` is refused with. */
function refusal(argv: string[]): string {
  try {
    parseCliArgs(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`${argv.join(" ")} was accepted`);
}

describe("--thinking and --effort", () => {
  it("are taken by the REPL, run, cron and the demo, as the settings a turn takes", () => {
    expect(turnFlags(parseCliArgs(["--thinking", "adaptive", "--effort", "high"]))).toEqual({ thinking: "adaptive", effort: "high" });
    expect(turnFlags(parseCliArgs(["run", "--thinking", "8000", "hi"]))).toEqual({ thinking: 8000 });
    expect(turnFlags(parseCliArgs(["cron", "run", "morning", "--thinking", "off", "--effort", "MAX"]))).toEqual({ thinking: "off", effort: "max" });
    expect(turnFlags(parseCliArgs(["demo", "--effort", "low"]))).toEqual({ effort: "low" });
    expect(turnFlags(parseCliArgs(["run", "hi"]))).toEqual({});
  });

  it("refuse a bad value with a line naming the flag", () => {
    expect(refusal(["--thinking", "500"])).toBe("--thinking a thinking budget must be at least 1024 tokens, got 500");
    expect(refusal(["run", "--thinking", "lots", "hi"])).toBe('--thinking must be "adaptive", "off" or a thinking budget in tokens (such as 8000), got "lots"');
    expect(refusal(["--effort", "extreme"])).toBe('--effort must be one of low, medium, high, xhigh, max, got "extreme"');
  });

  it("are refused by commands that run no turn", () => {
    expect(refusal(["sessions", "--effort", "high"])).toBe("--effort goes with the REPL, miniclaw run and miniclaw cron");
    expect(refusal(["init", "--thinking", "adaptive"])).toBe("--thinking goes with the REPL, miniclaw run and miniclaw cron");
  });

  it("are listed by --help", async () => {
    const run = await runMain(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ {2}--thinking MODE +adaptive \| off \| a budget in tokens/m);
    expect(run.stdout).toMatch(/^ {2}--effort LEVEL +low \| medium \| high \| xhigh \| max/m);
    expect(run.stdout).toMatch(/^ {2}run --output-schema FILE MESSAGE$/m);
  });
});

describe("--output-schema", () => {
  it("goes with run alone", () => {
    expect(parseCliArgs(["run", "--output-schema", "schema.json", "rate it"])).toMatchObject({ command: "run", outputSchema: "schema.json", words: ["rate it"] });
    expect(refusal(["--output-schema", "schema.json"])).toBe("--output-schema goes with miniclaw run (a cron job names its outputSchema in cron.json)");
    expect(refusal(["cron", "run", "x", "--output-schema", "s.json"])).toMatch(/^--output-schema goes with miniclaw run/);
  });
});
