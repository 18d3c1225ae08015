// What every model-using command does first: credentials, then the workspace (created from templates if new), and a client whose retries are seen;
// and `miniclaw init [DIR]`, a workspace made from the templates on request.
import type Anthropic from "@anthropic-ai/sdk";
import { ConfigError } from "../errors.js";
import type { EventSink } from "../types.js";
import { readCredentials } from "../model/credentials.js";
import { readProvider } from "../providers/model-names.js";
import { hideSecretsFromProcEnviron } from "../model/environ-hiding.js";
import { isSecretVariable, secretValues } from "../gate/secret-env.js";
import type { CassetteRecorder } from "../testing/record.js";
import { ensureWorkspace, initWorkspace, resolveWorkspace } from "../runtime/workspace.js";
import type { CliArgs } from "./args.js";
import type { CliIo } from "./io.js";
import { visibleText } from "./visible-text.js";

/** Checks credentials first (a missing key: the guidance alone), then loads the SDK (or takes `client`, the demo's) and the workspace (a line if created); hides secrets from children (Linux). */
export async function openWorkspace(args: CliArgs, io: CliIo, client?: Anthropic): Promise<{ workspace: string; client: Anthropic; recorder?: CassetteRecorder }> {
  const provider = readProvider(io.env, args.provider);
  // Another provider has credentials of its own, read by its SDK, loaded only then.
  const elsewhere = provider !== "anthropic";
  if (!client && !elsewhere) readCredentials(io.env);
  const recorder = args.record === undefined ? undefined : (await import("../testing/record.js")).recordCassette(args.record, { secrets: secretValues(io.env), argv: args.argv ?? [] });
  const options = { env: io.env, ...(recorder && { wrapFetch: recorder.wrap }) };
  const onWarning = (line: string): void => void io.stderr.write(`warning: ${line}\n`);
  const loading = client
    ? Promise.resolve(client)
    : elsewhere
      ? import("../providers/index.js").then((m) => m.createClient({ ...options, provider, onWarning }))
      : import("../model/client.js").then((m) => m.createClient(options));
  // Its error (a provider's missing setting) is thrown below, once the workspace is there: not an unhandled rejection meanwhile.
  loading.catch(() => {});
  const workspace = await readyWorkspace(args, io);
  const ready = await loading;
  // The commands the model runs must not find the key in /proc/<our pid>/environ.
  if (io.env === process.env) hideSecretsFromProcEnviron(isSecretVariable);
  return { workspace, client: ready, ...(recorder && { recorder }) };
}

/** The command's workspace (--workspace, MINICLAW_WORKSPACE or the default), created from the templates when missing, with a line saying so. */
export async function readyWorkspace(args: Pick<CliArgs, "workspace">, io: CliIo): Promise<string> {
  const workspace = resolveWorkspace(io.cwd, args.workspace, io.env);
  if (await ensureWorkspace(workspace)) io.stderr.write(`Created a new workspace at ${workspace} from the templates.\n`);
  return workspace;
}

const RESPONSE_RETRY = /\] (\S+) (\S+) failed with status (\d+) in \d+ms - retrying, (\d+) attempts? remaining/;
const CONNECTION_RETRY = /connection (failed|timed out) - retrying, (\d+) attempts? remaining/;

/** A copy of `client` whose retries before the first byte go to `sink()` (the turn's; undefined between turns) as `retry` events naming status and URL; its warnings and errors go to `warn`. */
export function reportRetries(client: Anthropic, sink: () => EventSink | undefined, warn: (message: string) => void): Anthropic {
  let attempt = 0;
  let counted: EventSink | undefined;
  const info = (message: string): void => {
    const response = RESPONSE_RETRY.exec(message);
    const connection = CONNECTION_RETRY.exec(message);
    if (!response && !connection) return;
    const reason = response
      ? `API error ${response[3]} from ${response[1]!.toUpperCase()} ${response[2]} (${response[4]} left)`
      : `connection ${connection![1]} to ${client.baseURL} (${connection![2]} left)`;
    const target = sink();
    if (target !== counted) [counted, attempt] = [target, 0];
    target?.({ type: "retry", attempt: ++attempt, reason, delayMs: 0 });
  };
  const quiet = (): void => {};
  return client.withOptions({ logLevel: "info", logger: { info, error: warn, warn, debug: quiet } });
}

/** `miniclaw init [DIR]`: the workspace DIR (else --workspace, MINICLAW_WORKSPACE or the default) from the templates, copying only what it lacks; one line per file: created, or kept. Needs no credentials. */
export async function initCommand(args: CliArgs, io: CliIo): Promise<number> {
  if (args.words.length > 1) throw new ConfigError(`init takes one folder, got ${args.words.length} words (see miniclaw --help)`);
  const workspace = resolveWorkspace(io.cwd, args.words[0] ?? args.workspace, io.env);
  const { created, kept } = await initWorkspace(workspace);
  for (const file of created) io.stdout.write(`created  ${visibleText(file)}\n`);
  for (const file of kept) io.stdout.write(`kept     ${visibleText(file)} (exists)\n`);
  const summary = created.length === 0 ? "already holds every template file; nothing changed" : `is ready: ${created.length} file${created.length === 1 ? "" : "s"} created, ${kept.length} kept`;
  io.stdout.write(`The workspace ${visibleText(workspace)} ${summary}.\n`);
  return 0;
}
