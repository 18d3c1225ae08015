// The only place that builds the Anthropic client and reads ANTHROPIC_* (from an env object it is given).
import Anthropic from "@anthropic-ai/sdk";
import { readCredentials, type Env } from "./credentials.js";
import { nodeFetch } from "./http-fetch.js";

export { MISSING_CREDENTIALS_MESSAGE, type Env } from "./credentials.js";

/** The newest Sonnet alias in the SDK's model list; `--model`, `MINICLAW_MODEL` or SOUL.md override it. */
export const DEFAULT_MODEL = "claude-sonnet-5-5";

/** SDK retries of 429, 529, 5xx and connection errors before the first byte (it honours retry-after). */
export const SDK_MAX_RETRIES = 3;

/** `env` holds ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN and ANTHROPIC_BASE_URL; `timeoutMs` defaults to the SDK's 10 minutes; `wrapFetch` wraps the transport (a cassette recorder). */
export type ClientOptions = { env: Env; maxRetries?: number; timeoutMs?: number; wrapFetch?: (fetch: typeof globalThis.fetch) => typeof globalThis.fetch };

/** Builds the client from `env` alone (no profile or config file behind the user's back), over `nodeFetch`. Throws ConfigError without a key, a token or a base URL. */
export function createClient({ env, maxRetries = SDK_MAX_RETRIES, timeoutMs, wrapFetch }: ClientOptions): Anthropic {
  const { apiKey, authToken, baseURL } = readCredentials(env);
  // A compatible local server may need no key; the SDK still wants one credential.
  const credentials = { apiKey: apiKey ?? (authToken ? null : "no-key"), authToken: authToken ?? null, ...(baseURL !== undefined && { baseURL }) };
  const fetch = wrapFetch ? wrapFetch(nodeFetch) : nodeFetch;
  return new Anthropic({ ...credentials, maxRetries, fetch, ...(timeoutMs !== undefined && { timeout: timeoutMs }) });
}

/** The model for an agent: its SOUL.md choice, else the runtime's, else the default. */
export function pickModel(...candidates: Array<string | undefined>): string {
  for (const c of candidates) if (c && c.trim()) return c.trim();
  return DEFAULT_MODEL;
}
