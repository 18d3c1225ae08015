// `miniclaw run MESSAGE`: one turn, the final text on stdout, activity on stderr, exit 0 or 1 with one line.
import { ConfigError } from "../errors.js";
import { refuseApprover } from "../deps.js";
import { isSuccessfulStop } from "../types.js";
import type { CliArgs } from "./args.js";
import type { CliIo } from "./io.js";
import { createRenderer, useColor } from "./render.js";
import { openWorkspace } from "./setup.js";
import { visibleReply, visibleText } from "./visible-text.js";

export async function runOnce(args: CliArgs, io: CliIo): Promise<number> {
  const text = args.words.join(" ").trim();
  if (!text) throw new ConfigError('miniclaw run needs a message, e.g. miniclaw run "what is in this folder?"');
  const { workspace, client } = await openWorkspace(args, io);
  const { openAssistant } = await import("../runtime/assistant.js");
  const render = createRenderer(io.stderr, { color: useColor(io.stderr, io.env), streamText: false });
  const assistant = await openAssistant({
    workspace,
    cwd: io.cwd,
    env: io.env,
    client,
    approver: refuseApprover,
    onWarning: (message) => render({ type: "warning", message }),
    ...(args.model !== undefined && { model: args.model }),
    ...(args.agent !== undefined && { defaultAgent: args.agent }),
    ...(args.permissionMode !== undefined && { permissionMode: args.permissionMode }),
  });
  const controller = new AbortController();
  const off = io.onSignal("SIGINT", () => controller.abort());
  try {
    const result = await assistant.send(text, {
      signal: controller.signal,
      onEvent: render,
      ...(args.session !== undefined && { sessionKey: args.session }),
    });
    if (result.text) io.stdout.write(`${visibleReply(result.text, io.stdout)}\n`);
    if (result.stopReason === "aborted") {
      io.stderr.write("interrupted\n");
      return 130;
    }
    if (isSuccessfulStop(result.stopReason)) {
      if (result.stopReason !== "end_turn" && result.stopReason !== "stop_sequence") io.stderr.write(`(stopped: ${result.stopReason})\n`);
      return 0;
    }
    if (result.stopReason !== "error") io.stderr.write(`miniclaw: ${result.stopReason}: ${visibleText(result.error ?? "the turn stopped")}\n`);
    return 1;
  } finally {
    off();
    assistant.close();
  }
}
