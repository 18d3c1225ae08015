// The workspace's settings.json (the sandbox, for now), and the sandbox a command runs with: --sandbox, MINICLAW_SANDBOX, settings.json, on.
import { join } from "node:path";
import * as z from "zod";
import { checkConfig, parseJsonConfig, readConfigText } from "../fs/config-file.js";
import type { SandboxOption } from "../shell/index.js";
import type { CliArgs } from "./args.js";
import type { CliIo } from "./io.js";

/** The settings file inside the workspace. */
export const SETTINGS_FILE = "settings.json";

const setting = z.enum(["off", "on", "auto"], { error: "must be off, on or auto" });
const schema = z.strictObject({
  sandbox: z
    .union([setting, z.strictObject({ mode: setting, network: z.enum(["allow", "deny"], { error: "must be allow or deny" }).optional() })], {
      error: 'must be off, on or auto, or { "mode": ..., "network": "allow" | "deny" }',
    })
    .optional(),
});

/** What settings.json holds. */
export type WorkspaceSettings = z.infer<typeof schema>;

/** Reads `<workspace>/settings.json`; none is `{}`. Throws a one-line ConfigError naming the file and the field. */
export async function readSettings(workspace: string): Promise<WorkspaceSettings> {
  const file = join(workspace, SETTINGS_FILE);
  const text = await readConfigText(file, { optional: true });
  return text === undefined ? {} : checkConfig(schema, parseJsonConfig(text, file), file);
}

/** The sandbox of a command: `--sandbox`, else MINICLAW_SANDBOX, else settings.json's `sandbox` (its `network`, for approved commands, holds whichever gives the mode), else on. */
export async function sandboxOf(args: Pick<CliArgs, "sandbox">, io: Pick<CliIo, "env">, workspace: string): Promise<SandboxOption | undefined> {
  const file = (await readSettings(workspace)).sandbox;
  const network = typeof file === "object" ? file.network : undefined;
  const mode = args.sandbox ?? (io.env["MINICLAW_SANDBOX"]?.trim() || undefined) ?? (typeof file === "object" ? file.mode : file);
  if (mode === undefined) return network === undefined ? undefined : { mode: "on", network };
  return network === undefined ? (mode as SandboxOption) : { mode: mode as "off" | "on" | "auto", network };
}
