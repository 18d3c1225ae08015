// What every model-using command does first: credentials, then the workspace (created from templates if new).
import type Anthropic from "@anthropic-ai/sdk";
import { createClient } from "../model/client.js";
import { ensureWorkspace, resolveWorkspace } from "../runtime/workspace.js";
import type { CliArgs } from "./args.js";
import type { CliIo } from "./io.js";

/**
 * Checks credentials before touching anything (so a missing key costs nothing and prints
 * the guidance alone), then makes sure the workspace exists, saying so in one line when created.
 */
export async function openWorkspace(args: CliArgs, io: CliIo, client?: Anthropic): Promise<{ workspace: string; client: Anthropic }> {
  const ready = client ?? createClient({ env: io.env });
  const workspace = resolveWorkspace(io.cwd, args.workspace, io.env);
  if (await ensureWorkspace(workspace)) io.stderr.write(`Created a new workspace at ${workspace} from the templates.\n`);
  return { workspace, client: ready };
}
