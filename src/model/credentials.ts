// Reading ANTHROPIC_* credentials from an env object, without loading the SDK (so a missing key fails fast).
import { ConfigError } from "../errors.js";

/** Printed alone by the CLI when no credentials are set. */
export const MISSING_CREDENTIALS_MESSAGE =
  "miniclaw needs credentials for the Anthropic API. Set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) " +
  "to your key, or set ANTHROPIC_BASE_URL to a server that speaks the Messages API. " +
  "To try miniclaw without a key, run `npm run demo`, which uses the built-in scripted model.";

export type Env = Record<string, string | undefined>;

export interface Credentials {
  apiKey?: string;
  authToken?: string;
  baseURL?: string;
}

/** The credentials in `env`, read as the SDK reads them. Throws ConfigError when there is none at all. */
export function readCredentials(env: Env): Credentials {
  const apiKey = nonEmpty(env["ANTHROPIC_API_KEY"]);
  const authToken = nonEmpty(env["ANTHROPIC_AUTH_TOKEN"]);
  const baseURL = nonEmpty(env["ANTHROPIC_BASE_URL"]);
  if (!apiKey && !authToken && !baseURL) throw new ConfigError(MISSING_CREDENTIALS_MESSAGE);
  return { ...(apiKey && { apiKey }), ...(authToken && { authToken }), ...(baseURL && { baseURL }) };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.trim() ? value.trim() : undefined;
}
