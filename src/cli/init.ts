// `miniclaw init [DIR]`: a workspace made from the templates on request, listing what it created and what it kept.
import { ConfigError } from "../errors.js";
import { initWorkspace, resolveWorkspace } from "../runtime/workspace.js";
import type { CliArgs } from "./args.js";
import type { CliIo } from "./io.js";
import { visibleText } from "./visible-text.js";

/** Creates the workspace DIR (else --workspace, MINICLAW_WORKSPACE or the default) from the templates, copying only what it lacks; one line per file: created, or kept. Needs no credentials. */
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
