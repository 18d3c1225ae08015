// Each command's own --help: its usage and options, exit 0, for every command; the general help points at them.
import { describe, it } from "vitest";
import { cleanEnv, runCli, runMain } from "../helpers/cli.js";

const COMMANDS = ["run", "cron", "sessions", "mcp", "db", "demo", "init", "replay", "steer"];

describe.concurrent("miniclaw COMMAND --help", () => {
  for (const command of COMMANDS) {
    it(`${command} --help prints ${command}'s own usage and exits 0, needing no key or workspace`, async ({ expect }) => {
      const help = await runMain([command, "--help"], { env: cleanEnv() });
      expect(help.code).toBe(0);
      expect(help.stderr).toBe("");
      expect(help.stdout).toMatch(new RegExp(`^Usage: miniclaw ${command}\\b`));
      expect(help.stdout).not.toContain("Commands:");
      // -h is the same, and so is --help after the command's own words.
      expect((await runMain([command, "-h"], { env: cleanEnv() })).stdout).toBe(help.stdout);
      expect((await runMain([command, "show", "--help"], { env: cleanEnv() })).stdout).toBe(help.stdout);
    });
  }

  it("run's help names its own options; cron's its subcommands (the binary)", async ({ expect }) => {
    const run = await runCli(["run", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ {2}--output-format FORMAT +text \(the reply\) \| json/m);
    expect(run.stdout).toMatch(/^ {2}-c, --continue +go on in the session of the last run$/m);
    const cron = await runCli(["cron", "--help"]);
    expect(cron.stdout).toMatch(/^ {2}cron runs \[JOB\] +the latest runs, of every job or of JOB$/m);
  });

  it("the general help lists every command and says each explains itself; every line fits 100 columns", async ({ expect }) => {
    const help = await runMain(["--help"], { env: cleanEnv() });
    expect(help.stdout).toMatch(/^ {2}Each command has its own help: miniclaw COMMAND --help\.$/m);
    for (const command of COMMANDS) expect(help.stdout).toMatch(new RegExp(`^ {2}${command}\\b`, "m"));
    for (const option of ["--allowed-tools TOOLS", "--disallowed-tools TOOLS", "--append-system-prompt TEXT", "--max-budget-usd N", "--resume [KEY]"]) expect(help.stdout).toContain(`  ${option}`);
    for (const line of help.stdout.split("\n")) expect(line.length).toBeLessThanOrEqual(100);
  });
});
