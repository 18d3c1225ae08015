// miniclaw/shell: the command judge (fast path, grammar, rules, paths, the disk pass), run_command and its processes.
import type { CommandJudge } from "../gate/context.js";
import type { AnyTool } from "../tools/define.js";
import { createCommandJudge } from "./judge.js";
import { createRunCommandTool, type RunCommandOptions } from "./run-command.js";

export { createCommandJudge } from "./judge.js";
export { createRunCommandTool, COMMAND_TIMEOUT_MS, type RunCommandOptions } from "./run-command.js";
export { checkCommandSafety, type SafetyVerdict, type SafetyOptions } from "./safety.js";
export { keepShellParserAtBaseline } from "./shell-parse.js";

/** The shell as a runtime plugs it in: the judge the gate asks about commands, and the tool that runs them. */
export interface Shell {
  judge: CommandJudge;
  tool: AnyTool;
}

/** Options of the shell: run_command's limits. */
export type ShellOptions = RunCommandOptions;

/** The judge and run_command, made once for a runtime. */
export function createShell(options: ShellOptions = {}): Shell {
  return { judge: createCommandJudge(), tool: createRunCommandTool(options) };
}
