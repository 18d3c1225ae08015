// miniclaw/providers: where Claude runs (the Anthropic API, Amazon Bedrock, Vertex AI, Microsoft Foundry), as a client the core takes.
import type Anthropic from "@anthropic-ai/sdk";
import { ConfigError } from "../errors.js";
import { createClient as createAnthropicClient, SDK_MAX_RETRIES, type ClientOptions } from "../model/client.js";
import { nodeFetch } from "../model/http-fetch.js";
import { bedrockClient, foundryClient, vertexClient, type ClientBase } from "./clients.js";
import { PROVIDERS, type Provider } from "./model-names.js";
import { shapeRequests } from "./request-shape.js";

export { PROVIDERS, providerModel, type Provider } from "./model-names.js";
export { shapeBody } from "./request-shape.js";
export { PROVIDER_PACKAGES, missingPackageMessage } from "./clients.js";

/** Options of the providers' `createClient`: the core's, and where Claude runs. */
export interface ProviderClientOptions extends ClientOptions {
  /** Default MINICLAW_PROVIDER of `env`, else `anthropic`. */
  provider?: Provider | undefined;
  /** Lines for the user (a feature the provider lacks, left out); default console.warn. Must not throw. */
  onWarning?: (line: string) => void;
  /** Given as they are to the provider's client: `providerChainResolver` (Bedrock), `googleAuth` (Vertex), `azureADTokenProvider` (Foundry), ... */
  providerOptions?: Record<string, unknown>;
}

/** The provider of `flag` (`--provider`), else MINICLAW_PROVIDER, else `anthropic`. Throws a one-line ConfigError for any other name. */
export function readProvider(env: ClientOptions["env"], flag?: string): Provider {
  const raw = (flag ?? env["MINICLAW_PROVIDER"] ?? "").trim().toLowerCase();
  if (raw === "") return "anthropic";
  const provider = PROVIDERS.find((name) => name === raw);
  if (provider) return provider;
  throw new ConfigError(`${flag !== undefined ? "--provider" : "MINICLAW_PROVIDER"} must be one of ${PROVIDERS.join(", ")}, got "${flag ?? env["MINICLAW_PROVIDER"]}"`);
}

/**
 * A client for `provider`, as the core's `client` option takes it; only that provider's SDK is imported, its credentials and base URL read from `env` as
 * the SDK reads them. Each request's model is spelled the provider's way (MINICLAW_MODEL as written); a server tool the provider lacks is left out with one
 * line to `onWarning`. Throws a one-line ConfigError for a missing setting or an SDK not installed (naming what to `npm install`).
 */
export async function createClient(options: ProviderClientOptions): Promise<Anthropic> {
  const { env, wrapFetch } = options;
  const provider = options.provider ?? readProvider(env);
  if (provider === "anthropic") return createAnthropicClient(options);
  const warn = options.onWarning ?? ((line: string) => console.warn(`miniclaw: ${line}`));
  const base: ClientBase = {
    env,
    // MINICLAW_SKIP_PROVIDER_AUTH=1 (or true): a gateway authenticates, so no provider credentials are sent.
    skipAuth: /^(1|true|yes)$/i.test(env["MINICLAW_SKIP_PROVIDER_AUTH"]?.trim() ?? ""),
    fetch: wrapFetch ? wrapFetch(nodeFetch) : nodeFetch,
    maxRetries: options.maxRetries ?? SDK_MAX_RETRIES,
    ...(options.timeoutMs !== undefined && { timeout: options.timeoutMs }),
    middleware: [shapeRequests(provider, env["MINICLAW_MODEL"]?.trim() || undefined, warn)],
    providerOptions: options.providerOptions ?? {},
  };
  if (provider === "bedrock") return bedrockClient(base);
  if (provider === "vertex") return vertexClient(base);
  return foundryClient(base);
}
