// The only place that builds the Anthropic client and reads ANTHROPIC_* (from an env it is given); its API errors known by their fields, not class.
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

/** What the loop reads of an SDK `APIError` (and its subclasses: BadRequestError, APIConnectionError, ...). */
export interface ApiErrorFields extends Error {
  /** The HTTP status; undefined when no answer came (a connection error, an abort) and for an error event within a stream. */
  status: number | undefined;
  /** The response body, as parsed. */
  error: unknown;
  type?: string | null;
}

/** The error as an SDK API error from any copy of the SDK (every `APIError` sets `status`, `headers` and `error`), else undefined. */
export function asApiError(error: unknown): ApiErrorFields | undefined {
  return error instanceof Error && "status" in error && "headers" in error && "error" in error ? (error as ApiErrorFields) : undefined;
}

/** A 400 from the API (the SDK's BadRequestError). */
export function isBadRequest(error: unknown): error is ApiErrorFields {
  return asApiError(error)?.status === 400;
}

/** An error of a model overloaded (529, an `overloaded_error` event) or unavailable (503) once the retries are spent, not of a request at fault. */
export function isUnavailable(error: unknown): boolean {
  const api = asApiError(error);
  return api !== undefined && (api.status === 529 || api.status === 503 || errorType(api) === "overloaded_error");
}

/** The type the API's error body names (`overloaded_error`), else the SDK's. */
function errorType(api: ApiErrorFields): string | undefined {
  return (api.error as { error?: { type?: string } } | undefined)?.error?.type ?? api.type ?? undefined;
}

/** One line describing an API or network error; a failed connection names what it tried (`connect ECONNREFUSED 127.0.0.1:9`). */
export function describeError(error: unknown): string {
  const api = asApiError(error);
  // No status and no body: no answer came (an SSE `error` event mid-stream has a body and no status).
  if (api && api.status === undefined && api.error === undefined && api.name !== "APIUserAbortError") {
    const causes: string[] = [];
    for (let cause = api.cause; cause instanceof Error && causes.length < 4; cause = cause.cause) causes.push(cause.message);
    const tried = causes.filter((c) => c !== "fetch failed").join(": ");
    return oneLine(`${api.message.replace(/\.$/, "")}${tried ? `: ${tried}` : ""}`);
  }
  if (api) {
    const type = errorType(api);
    const message = (api.error as { error?: { message?: string } } | undefined)?.error?.message ?? api.message;
    const status = api.status !== undefined ? `${api.status} ` : "";
    return `API error ${status}${type ? `(${type}) ` : ""}${oneLine(message)}`.trim();
  }
  return oneLine(error instanceof Error ? error.message : String(error));
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, 500);
}
