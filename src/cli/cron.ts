// `miniclaw cron`: the scheduler (being written).
import { ConfigError } from "../errors.js";
import type { CliArgs } from "./args.js";
import type { CliIo } from "./io.js";

export async function cronCommand(_args: CliArgs, _io: CliIo): Promise<number> {
  throw new ConfigError("miniclaw cron is not available in this build yet");
}
