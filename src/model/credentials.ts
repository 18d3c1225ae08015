// Reading ANTHROPIC_* credentials from an env object, without loading the SDK (so a missing key fails fast).
import { ConfigError } from "../errors.js";

/** The message when no credentials are set: what holds for any program using miniclaw (the command line adds its demo). */
export const MISSING_CREDENTIALS_MESSAGE =
  "miniclaw needs credentials for the Anthropic API. Set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) " +
  "to your key, or set ANTHROPIC_BASE_URL to a server that speaks the Messages API.";

/** No credentials at all: a ConfigError of its own kind, so the command line can add its hint. */
export class MissingCredentialsError extends ConfigError {
  constructor() {
    super(MISSING_CREDENTIALS_MESSAGE);
  }
}

export type Env = Record<string, string | undefined>;

export type Credentials = { apiKey?: string; authToken?: string; baseURL?: string };

/** A setting's value trimmed, or undefined when it is missing or blank: how every environment variable is read. */
export function nonEmpty(value: string | undefined): string | undefined {
  return value?.trim() || undefined;
}

/** The credentials in `env`, read as the SDK reads them. Throws MissingCredentialsError (a ConfigError) when there is none at all. */
export function readCredentials(env: Env): Credentials {
  const apiKey = nonEmpty(env["ANTHROPIC_API_KEY"]);
  const authToken = nonEmpty(env["ANTHROPIC_AUTH_TOKEN"]);
  const baseURL = nonEmpty(env["ANTHROPIC_BASE_URL"]);
  if (!apiKey && !authToken && !baseURL) throw new MissingCredentialsError();
  return { ...(apiKey && { apiKey }), ...(authToken && { authToken }), ...(baseURL && { baseURL }) };
}
