// The client a runtime builds for itself: from the environment's credentials, reused while they stay the same.
import type Anthropic from "@anthropic-ai/sdk";
import { isSecretVariable } from "../gate/secret-env.js";
import { createClient, type Env } from "../model/client.js";
import { readCredentials } from "../model/credentials.js";
import { hideSecretsFromProcEnviron } from "../model/environ-hiding.js";

export type { Env } from "../model/client.js";

/** The default client of the last runtime that built one, kept while the credentials it was built from stay the same. */
let last: { credentials: string; client: Anthropic } | undefined;

/**
 * The default client: the previous runtime's when the environment names the same credentials (a
 * client holds no state of a turn, and building one costs each turn some 0.2 ms). Once one was
 * built from the process's own environment, the secrets are blanked in the environment block the
 * process started with, which its commands could otherwise read as /proc/<our pid>/environ
 * (process.env keeps them). Throws ConfigError without credentials.
 */
export function defaultClient(env: Env): Anthropic {
  const credentials = JSON.stringify(readCredentials(env));
  if (last?.credentials !== credentials) last = { credentials, client: createClient({ env }) };
  if (env === process.env) hideSecretsFromProcEnviron(isSecretVariable);
  return last.client;
}
