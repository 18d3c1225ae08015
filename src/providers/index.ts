// miniclaw/providers: where Claude runs (the Anthropic API, Bedrock, Vertex AI, Foundry), as a client the core takes, each SDK loaded only when chosen.
import type Anthropic from "@anthropic-ai/sdk";
import type { Middleware } from "@anthropic-ai/sdk/client";
import { ConfigError } from "../errors.js";
import { nonEmpty } from "../model/credentials.js";
import { createClient as createAnthropicClient, SDK_MAX_RETRIES, type ClientOptions, type Env } from "../model/client.js";
import { nodeFetch } from "../model/http-fetch.js";
import { providerModel, readProvider, type Provider } from "./model-names.js";

export { PROVIDERS, providerModel, readProvider, type Provider } from "./model-names.js";

/** Options of the providers' `createClient`: the core's, and where Claude runs. */
export interface ProviderClientOptions extends ClientOptions {
  /** Default MINICLAW_PROVIDER of `env`, else `anthropic`. */
  provider?: Provider | undefined;
  /** Lines for the user (a feature the provider lacks, left out); default console.warn. Must not throw. */
  onWarning?: (line: string) => void;
  /** Given as they are to the provider's client: `providerChainResolver` (Bedrock), `googleAuth` (Vertex), `azureADTokenProvider` (Foundry), ... */
  providerOptions?: Record<string, unknown>;
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
    middleware: [shapeRequests(provider, nonEmpty(env["MINICLAW_MODEL"]), warn)],
    providerOptions: options.providerOptions ?? {},
  };
  if (provider === "bedrock") return bedrockClient(base);
  if (provider === "vertex") return vertexClient(base);
  return foundryClient(base);
}

/** Server tools a provider does not run, by the prefix of their type; a request offering one would be refused whole. */
const UNSUPPORTED_TOOLS: Record<Provider, readonly string[]> = {
  anthropic: [],
  bedrock: ["web_search_", "web_fetch_", "code_execution_"],
  vertex: ["web_fetch_", "code_execution_"],
  foundry: [],
};

const PROVIDER_NAMES: Record<Provider, string> = { anthropic: "the Anthropic API", bedrock: "Amazon Bedrock", vertex: "Vertex AI", foundry: "Microsoft Foundry" };

type Body = { model?: unknown; tools?: unknown; tool_choice?: unknown };

/** The body for `provider`: the model mapped (see `providerModel`), the tools it does not run removed with a tool choice naming one; and their names. Pure. */
export function shapeBody(provider: Provider, body: Body, verbatim?: string): { body: Body; leftOut: string[] } {
  const shaped: Body = { ...body };
  if (typeof body.model === "string") shaped.model = providerModel(provider, body.model, verbatim);
  const prefixes = UNSUPPORTED_TOOLS[provider];
  const tools = Array.isArray(body.tools) ? (body.tools as Array<{ type?: unknown; name?: unknown }>) : [];
  const dropped = tools.filter((tool) => typeof tool.type === "string" && prefixes.some((prefix) => (tool.type as string).startsWith(prefix)));
  if (dropped.length === 0) return { body: shaped, leftOut: [] };
  const names = dropped.map((tool) => String(tool.name));
  const kept = tools.filter((tool) => !dropped.includes(tool));
  if (kept.length > 0) shaped.tools = kept;
  else delete shaped.tools;
  const choice = body.tool_choice as { name?: unknown } | undefined;
  if (kept.length === 0 || (choice && names.includes(String(choice.name)))) delete shaped.tool_choice;
  return { body: shaped, leftOut: names };
}

/** SDK middleware shaping each Messages request for `provider` before its SDK signs it; `warn` (must not throw) hears each feature left out, once. */
function shapeRequests(provider: Provider, verbatim: string | undefined, warn: (line: string) => void): Middleware {
  const said = new Set<string>();
  return async (request, next) => {
    if (typeof request.body !== "string" || !new URL(request.url).pathname.endsWith("/v1/messages")) return next(request);
    const { body, leftOut } = shapeBody(provider, JSON.parse(request.body) as Body, verbatim);
    for (const name of leftOut.filter((n) => !said.has(n))) {
      said.add(name);
      warn(`${PROVIDER_NAMES[provider]} does not offer the server tool ${name}: it is left out of the requests`);
    }
    return next({ ...request, body: JSON.stringify(body) });
  };
}

/** The package of each provider's client: optional peer dependencies of miniclaw, installed by those who use them. */
export const PROVIDER_PACKAGES = { bedrock: "@anthropic-ai/bedrock-sdk", vertex: "@anthropic-ai/vertex-sdk", foundry: "@anthropic-ai/foundry-sdk" } as const;

/** What `npm install` needs for a provider, in one line. */
export function missingPackageMessage(provider: keyof typeof PROVIDER_PACKAGES): string {
  const name = PROVIDER_PACKAGES[provider];
  return `MINICLAW_PROVIDER=${provider} needs the package ${name}, which is not installed: run npm install ${name}`;
}

/** The module `load` imports; a missing package (and only that) becomes a ConfigError naming what to install. */
export async function loadSdk<T>(provider: keyof typeof PROVIDER_PACKAGES, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const message = error instanceof Error ? error.message : "";
    if ((code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && message.includes(PROVIDER_PACKAGES[provider])) throw new ConfigError(missingPackageMessage(provider));
    throw error;
  }
}

/** What every provider's client is built with: the transport, retries, timeout, the request shaping, and the provider's own options. */
interface ClientBase {
  env: Env;
  skipAuth: boolean;
  fetch: typeof globalThis.fetch;
  maxRetries: number;
  timeout?: number;
  middleware: Middleware[];
  /** Passed to the provider's client as they are (`providerChainResolver`, `googleAuth`, `azureADTokenProvider`, ...). */
  providerOptions: Record<string, unknown>;
}


/** The SDK's options every provider shares; behind a gateway (skip-auth) its own token, ANTHROPIC_AUTH_TOKEN, goes as a bearer token. */
function shared(base: ClientBase, headers: Record<string, string | null> = {}) {
  const token = base.skipAuth ? nonEmpty(base.env["ANTHROPIC_AUTH_TOKEN"]) : undefined;
  const defaultHeaders = { ...headers, ...(token && { Authorization: `Bearer ${token}` }) };
  return { fetch: base.fetch, maxRetries: base.maxRetries, middleware: base.middleware, defaultHeaders, ...(base.timeout !== undefined && { timeout: base.timeout }) };
}

/** Amazon Bedrock: SigV4 with the AWS keys of `env` (else the AWS SDK's chain: profile, SSO, instance role), or AWS_BEARER_TOKEN_BEDROCK. */
async function bedrockClient(base: ClientBase): Promise<Anthropic> {
  const { AnthropicBedrock } = await loadSdk("bedrock", () => import("@anthropic-ai/bedrock-sdk"));
  const { env } = base;
  const awsRegion = nonEmpty(env["AWS_REGION"]) ?? nonEmpty(env["AWS_DEFAULT_REGION"]) ?? "us-east-1";
  const [awsAccessKey, awsSecretKey] = [nonEmpty(env["AWS_ACCESS_KEY_ID"]), nonEmpty(env["AWS_SECRET_ACCESS_KEY"])];
  const keys = awsAccessKey && awsSecretKey ? { awsAccessKey, awsSecretKey, awsSessionToken: nonEmpty(env["AWS_SESSION_TOKEN"]) ?? null } : {};
  // Keys given or not is known only at run time; the constructor's overloads say it at compile time.
  return new AnthropicBedrock({
    ...shared(base),
    awsRegion,
    baseURL: nonEmpty(env["ANTHROPIC_BEDROCK_BASE_URL"]) ?? `https://bedrock-runtime.${awsRegion}.amazonaws.com`,
    apiKey: base.skipAuth ? null : (nonEmpty(env["AWS_BEARER_TOKEN_BEDROCK"]) ?? null),
    skipAuth: base.skipAuth,
    ...keys,
    ...base.providerOptions,
  } as never) as unknown as Anthropic;
}

/** Vertex AI: Google application-default credentials, CLOUD_ML_REGION and ANTHROPIC_VERTEX_PROJECT_ID; behind a gateway, no Google token at all. */
async function vertexClient(base: ClientBase): Promise<Anthropic> {
  const { env } = base;
  const region = nonEmpty(env["CLOUD_ML_REGION"]);
  const projectId = nonEmpty(env["ANTHROPIC_VERTEX_PROJECT_ID"]);
  if (!region) throw new ConfigError("MINICLAW_PROVIDER=vertex needs CLOUD_ML_REGION (such as us-east5, or global) and ANTHROPIC_VERTEX_PROJECT_ID");
  if (!projectId && base.skipAuth) throw new ConfigError("MINICLAW_PROVIDER=vertex with MINICLAW_SKIP_PROVIDER_AUTH=1 needs ANTHROPIC_VERTEX_PROJECT_ID (no Google credentials to read it from)");
  const { AnthropicVertex } = await loadSdk("vertex", () => import("@anthropic-ai/vertex-sdk"));
  // No token exchange (it needs the network): the gateway authenticates.
  const noGoogleToken = { projectId: null, getRequestHeaders: async () => new Headers() };
  const client = new AnthropicVertex({
    ...shared(base),
    region,
    projectId: projectId ?? null,
    ...(nonEmpty(env["ANTHROPIC_VERTEX_BASE_URL"]) && { baseURL: nonEmpty(env["ANTHROPIC_VERTEX_BASE_URL"]) }),
    ...(base.skipAuth && { authClient: noGoogleToken as never }),
    ...base.providerOptions,
  });
  // The SDK starts looking for Google credentials at once; a failure is reported by the first request, not as an unhandled rejection.
  (client as unknown as { _authClientPromise?: Promise<unknown> })._authClientPromise?.catch(() => {});
  return client as unknown as Anthropic;
}

/** Microsoft Foundry: ANTHROPIC_FOUNDRY_RESOURCE or ANTHROPIC_FOUNDRY_BASE_URL, and ANTHROPIC_FOUNDRY_API_KEY (or an Entra token provider given as `azureADTokenProvider`). */
async function foundryClient(base: ClientBase): Promise<Anthropic> {
  const { env } = base;
  const baseURL = nonEmpty(env["ANTHROPIC_FOUNDRY_BASE_URL"]);
  const resource = nonEmpty(env["ANTHROPIC_FOUNDRY_RESOURCE"]);
  const apiKey = nonEmpty(env["ANTHROPIC_FOUNDRY_API_KEY"]);
  if (!baseURL && !resource) throw new ConfigError("MINICLAW_PROVIDER=foundry needs ANTHROPIC_FOUNDRY_RESOURCE (your Foundry resource's name) or ANTHROPIC_FOUNDRY_BASE_URL");
  const entra = "azureADTokenProvider" in base.providerOptions;
  if (!apiKey && !entra && !base.skipAuth) throw new ConfigError("MINICLAW_PROVIDER=foundry needs ANTHROPIC_FOUNDRY_API_KEY (or, from a program, an Entra token provider as azureADTokenProvider)");
  const { AnthropicFoundry } = await loadSdk("foundry", () => import("@anthropic-ai/foundry-sdk"));
  // Behind a gateway the SDK still wants a key; none is sent.
  const credentials = base.skipAuth ? { apiKey: "unused" } : entra ? {} : { apiKey: apiKey! };
  return new AnthropicFoundry({
    ...shared(base, base.skipAuth ? { "x-api-key": null } : {}),
    ...(baseURL ? { baseURL, resource: null } : { resource: resource! }),
    ...credentials,
    ...base.providerOptions,
  }) as unknown as Anthropic;
}
