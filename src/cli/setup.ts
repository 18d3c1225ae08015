// What every model-using command does first: credentials, then the workspace (created from templates if new).
import type Anthropic from "@anthropic-ai/sdk";
import { readCredentials } from "../model/credentials.js";
import { hideSecretsFromProcEnviron } from "../model/environ-hiding.js";
import { isSecretVariable } from "../gate/secret-env.js";
import { ensureWorkspace, resolveWorkspace } from "../runtime/workspace.js";
import type { CliArgs } from "./args.js";
import type { CliIo } from "./io.js";

/**
 * Checks credentials before loading anything heavy (a missing key costs nothing and
 * prints the guidance alone), then loads the SDK while making sure the workspace
 * exists, saying so in one line when it was created. Once the client exists, the secrets of the
 * process's environment are blanked where its children could read them (Linux; elsewhere nothing).
 */
export async function openWorkspace(args: CliArgs, io: CliIo, client?: Anthropic): Promise<{ workspace: string; client: Anthropic }> {
  if (!client) readCredentials(io.env);
  const loading = client ? Promise.resolve(client) : import("../model/client.js").then((m) => m.createClient({ env: io.env }));
  const workspace = resolveWorkspace(io.cwd, args.workspace, io.env);
  if (await ensureWorkspace(workspace)) io.stderr.write(`Created a new workspace at ${workspace} from the templates.\n`);
  const ready = await loading;
  // The client holds the key now; the commands the model runs must not find it in /proc/<our pid>/environ.
  if (io.env === process.env) hideSecretsFromProcEnviron(isSecretVariable);
  return { workspace, client: ready };
}
