// The sentences the model reads when the gate refuses: what happened, and what to do instead of retrying.

/** How the user leaves dontAsk, in the words of the REPL and the command line. */
const SWITCH_TO_DEFAULT = "/mode default in the REPL, --permission-mode default on the command line";

/** Refusal texts, one per way the gate can say no. Each is a complete instruction to the model. */
export const refusals = {
  /** The command is in the denied list (or matches a denied pattern) of the approvals file. */
  deniedList: (command: string): string =>
    `The user denied this command: \`${command}\` is on the denied list of exec-approvals.json. Do not run it again or work around it; choose another approach or ask the user.`,

  /** Refused in every mode (process environments hold the API key). */
  never: (command: string, why: string): string =>
    `Refused in every mode: \`${command}\` is never allowed because ${why}. Do not retry it or a variation of it.`,

  /** The approver answered deny once or deny always. */
  userDenied: (command: string): string =>
    `The user denied this command (\`${command}\`). Do not retry it; choose another approach or ask the user what they want.`,

  /** Nobody can answer (`miniclaw run`, cron): the command needs approval and did not run. */
  unavailableCommand: (command: string, why: string): string =>
    `Not run: \`${command}\` needs the user's approval (${why}), and nobody is here to give it in this non-interactive run. ` +
    "Do not retry it or try variations of it. Finish without it and say in your reply exactly which command you wanted to run and why, so the user can run or approve it.",

  /** Plan mode: only provably read-only commands run. */
  planCommand: (command: string, why: string): string =>
    `Plan mode is read-only: only commands the gate can prove read-only run, and \`${command}\` is not (${why}). Describe the change in your plan instead of running it.`,

  /** Plan mode: no writes at all. */
  planWrite: (path: string): string =>
    `Plan mode is read-only: writing ${path} is not allowed. Describe the change in your plan instead.`,

  /** The approver refused a file access outside the roots or to a sensitive path. */
  userDeniedPath: (access: "read" | "write", path: string): string =>
    `The user denied ${access === "read" ? "reading" : "writing"} ${path}. Do not retry it; work inside the project folder or ask the user.`,

  /** Nobody can answer a file access outside the roots or to a sensitive path. */
  unavailablePath: (access: "read" | "write", path: string, why: string): string =>
    `Not allowed: ${access === "read" ? "reading" : "writing"} ${path} needs the user's approval (${why}), and nobody is here to give it in this non-interactive run. ` +
    "Do not retry it; say in your reply which file you needed and why.",

  /** The tool's name (or a glob matching it) is on the denied list. */
  deniedTool: (tool: string): string =>
    `The user denied the tool ${tool}: it is on the denied list of exec-approvals.json. Do not call it again; choose another approach or ask the user.`,

  /** Plan mode: a tool that is not read-only. */
  planTool: (tool: string): string =>
    `Plan mode is read-only: ${tool} is not a read-only tool, so it is not called. Describe what you would do with it in your plan instead.`,

  /** The approver refused a call of a tool that needs approval. */
  userDeniedTool: (tool: string): string =>
    `The user denied this call of ${tool}. Do not retry it; choose another approach or ask the user what they want.`,

  /** Nobody can answer (`miniclaw run`, cron): the tool needs approval and did not run. */
  unavailableTool: (tool: string): string =>
    `Not run: ${tool} needs the user's approval, and nobody is here to give it in this non-interactive run. ` +
    "Do not retry it. Finish without it and say in your reply which call you wanted to make and why, so the user can approve it.",

  /** `dontAsk`: the command would need the user's approval, and this mode never asks. */
  dontAskCommand: (command: string, why: string): string =>
    `Not run: \`${command}\` needs the user's approval (${why}), and the permission mode dontAsk refuses without asking whatever would need it. ` +
    `Do not retry it or try variations of it. Finish without it and say in your reply which command you wanted to run and why: the user can allow it by adding it to the allowed list of exec-approvals.json, or by switching to the default mode (${SWITCH_TO_DEFAULT}) to be asked.`,

  /** `dontAsk`: a file access outside the roots or to a protected path would need the user's approval. */
  dontAskPath: (access: "read" | "write", path: string, why: string): string =>
    `Not allowed: ${access === "read" ? "reading" : "writing"} ${path} needs the user's approval (${why}), and the permission mode dontAsk refuses without asking whatever would need it. ` +
    `Do not retry it. Say in your reply which file you needed and why: the user can allow it by switching to the default mode (${SWITCH_TO_DEFAULT}) to be asked.`,

  /** `dontAsk`: a tool declared to need approval, not on the allowed list. */
  dontAskTool: (tool: string): string =>
    `Not run: ${tool} needs the user's approval, and the permission mode dontAsk refuses without asking whatever would need it. ` +
    `Do not retry it. Finish without it and say in your reply which call you wanted to make and why: the user can allow it by adding ${tool} to the allowed list of exec-approvals.json, or by switching to the default mode (${SWITCH_TO_DEFAULT}) to be asked.`,

  /** exit_plan_mode where nobody can answer (`miniclaw run`, cron): only the user leaves plan mode. */
  leavePlanUnavailable: (): string =>
    "Still in plan mode: plan mode can only be left by the user, and nobody is here to approve the plan in this non-interactive run. " +
    "Do not call exit_plan_mode again or try to carry out the plan. Finish with the plan as your reply, so the user can approve it and run it in another mode.",
} as const;
