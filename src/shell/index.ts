// miniclaw/shell: the command judge (fast path, grammar, rules, paths, the disk pass), run_command and its processes.
import type { CommandJudge } from "../gate/context.js";
import type { AnyTool } from "../tools/define.js";
import { CommandSandbox, sandboxFromEnv, type SandboxOption } from "./sandbox/sandbox-command.js";
import { createCommandJudge } from "./judge.js";
import { createRunCommandTool, type RunCommandOptions } from "./run-command.js";

export { createCommandJudge } from "./judge.js";
export { createRunCommandTool, COMMAND_TIMEOUT_MS, type RunCommandOptions } from "./run-command.js";
export { checkCommandSafety, type SafetyVerdict, type SafetyOptions } from "./safety.js";
export { keepShellParserAtBaseline } from "./shell-parse.js";
export { CommandSandbox, sandboxFromEnv, type SandboxOption, type SandboxSetting } from "./sandbox/sandbox-command.js";

/** The shell as a runtime plugs it in: the judge the gate asks, the tool that runs commands, the line saying they run unsandboxed. */
export interface Shell {
  judge: CommandJudge;
  tool: AnyTool;
  notice(): Promise<string | undefined>;
}

/** Options of the shell: run_command's limits, and its OS sandbox (default MINICLAW_SANDBOX of `env`, else `on`). */
export interface ShellOptions extends RunCommandOptions { sandbox?: SandboxOption }

/** The judge and run_command over one sandbox, made once for a runtime. Throws ConfigError for a bad sandbox setting. */
export function createShell(options: ShellOptions = {}, env: Readonly<Record<string, string | undefined>> = process.env): Shell {
  const { sandbox: option, ...limits } = options;
  const sandbox = new CommandSandbox(option ?? sandboxFromEnv(env), undefined, env["PATH"]);
  return { judge: createCommandJudge(sandbox), tool: createRunCommandTool(limits, sandbox), notice: () => sandbox.notice() };
}
