// Which provider a process uses, and how each spells a model: Bedrock's `anthropic.` ids and inference profiles, Vertex's `@` versions. Pure.
import { ConfigError } from "../errors.js";

/** Where Claude runs: the Anthropic API (or a compatible server), Amazon Bedrock, Google Vertex AI, Microsoft Foundry. */
export type Provider = "anthropic" | "bedrock" | "vertex" | "foundry";
export const PROVIDERS: readonly Provider[] = ["anthropic", "bedrock", "vertex", "foundry"];

/** The provider of `flag` (`--provider`), else MINICLAW_PROVIDER, else `anthropic`. Throws a one-line ConfigError for any other name. */
export function readProvider(env: Readonly<Record<string, string | undefined>>, flag?: string): Provider {
  const raw = (flag ?? env["MINICLAW_PROVIDER"] ?? "").trim().toLowerCase();
  if (raw === "") return "anthropic";
  const provider = PROVIDERS.find((name) => name === raw);
  if (provider) return provider;
  throw new ConfigError(`${flag !== undefined ? "--provider" : "MINICLAW_PROVIDER"} must be one of ${PROVIDERS.join(", ")}, got "${flag ?? env["MINICLAW_PROVIDER"]}"`);
}

/** The dated ids of the older aliases, which Bedrock and Vertex know only by their date; newer models have one id everywhere. */
const DATED: Record<string, string> = {
  "claude-opus-4-5": "20251101",
  "claude-haiku-4-5": "20251001",
  "claude-sonnet-4-5": "20250929",
  "claude-opus-4-1": "20250805",
  "claude-opus-4-0": "20250514",
  "claude-sonnet-4-0": "20250514",
};

/**
 * The id `provider` knows `model` by; a provider's spelling and `verbatim` (MINICLAW_MODEL: the user's wins) pass as they are. Bedrock: the global
 * inference profile, `global.anthropic.claude-sonnet-4-5-20250929-v1:0`, `global.anthropic.claude-sonnet-5-5`; Vertex: `claude-sonnet-4-5@20250929`.
 */
export function providerModel(provider: Provider, model: string, verbatim?: string): string {
  // Not `claude-…` alone: already spelled for a provider (an ARN, an inference profile, a Bedrock id, a Vertex `@` version, a deployment name).
  if (provider === "anthropic" || provider === "foundry" || model === verbatim || !/^claude-[a-z0-9-]+$/.test(model)) return model;
  const dated = /^(.*)-(\d{8})$/.exec(model);
  const [alias, date] = dated ? [dated[1]!, dated[2]] : [model, DATED[model]];
  if (provider === "vertex") return date ? `${alias}@${date}` : alias;
  return `global.anthropic.${alias}${date ? `-${date}-v1:0` : ""}`;
}
