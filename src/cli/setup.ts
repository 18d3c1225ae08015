// What every model-using command does first: credentials, then the workspace (created from templates if new).
import type Anthropic from "@anthropic-ai/sdk";
import { readCredentials } from "../model/credentials.js";
import { hideSecretsFromProcEnviron } from "../model/environ-hiding.js";
import { isSecretVariable } from "../gate/secret-env.js";
import { ensureWorkspace, resolveWorkspace } from "../runtime/workspace.js";
import type { CliArgs } from "./args.js";
import type { CliIo } from "./io.js";

/**
 * Checks credentials before loading anything heavy (a missing key prints the guidance alone), then loads the SDK while
 * making sure the workspace exists (one line when it was created). `client` is a ready one (the demo's). Once the
 * client holds the key, the process's secrets are blanked where its children could read them (Linux).
 */
export async function openWorkspace(args: CliArgs, io: CliIo, client?: Anthropic): Promise<{ workspace: string; client: Anthropic }> {
  if (!client) readCredentials(io.env);
  const loading = client ? Promise.resolve(client) : import("../model/client.js").then((m) => m.createClient({ env: io.env }));
  const workspace = resolveWorkspace(io.cwd, args.workspace, io.env);
  if (await ensureWorkspace(workspace)) io.stderr.write(`Created a new workspace at ${workspace} from the templates.\n`);
  const ready = await loading;
  // The commands the model runs must not find the key in /proc/<our pid>/environ.
  if (io.env === process.env) hideSecretsFromProcEnviron(isSecretVariable);
  return { workspace, client: ready };
}
