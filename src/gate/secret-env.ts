// Which environment variables are secrets: by name or by value. Children never see them; tool results never show them.
import { orFallback } from "../errors.js";
import { MIN_KNOWN_SECRET_LENGTH, scanSecrets, urlPassword } from "./redact.js";

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|(^|_)PASS(_|$)|(^|_)PWD$|DSN|WEBHOOK/i;

/** Whether a value holds a credential whatever its name, by the shapes redaction uses (a URL with a password, a token, a key, `jdbc:…?password=…`). */
export function isSecretValue(value: string): boolean {
  return scanSecrets(value).labels.length > 0;
}

/**
 * Whether a variable is a secret, what `scrubEnv` removes: by name, `ANTHROPIC_*`, `MINICLAW_DATABASE_*` (the transcript's database) or a SECRET_NAME
 * word (`DB_PASS`; not `PWD`, `OLDPWD`: folders); or by value (`isSecretValue`).
 */
export function isSecretVariable(name: string, value: string | undefined): boolean {
  const byName = name.startsWith("ANTHROPIC_") || name.startsWith("MINICLAW_DATABASE_") || (SECRET_NAME.test(name) && name !== "PWD" && name !== "OLDPWD");
  return byName || (value !== undefined && isSecretValue(value));
}

/** A copy of `env` without its secret variables (`isSecretVariable`): what child processes of the agent may see. */
export function scrubEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name, value]) => !isSecretVariable(name, value)));
}

/** The texts redacted from every tool result: the secret variables' values (not plain `_URL`s) and credential URLs' passwords on their own, each of 8+ characters. */
export function secretValues(env: Record<string, string | undefined>): string[] {
  const found = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (!value || !isSecretVariable(name, value)) continue;
    const password = urlPassword(value.trim())?.password;
    if (password === undefined) {
      if (!name.endsWith("_URL")) found.add(value);
      continue;
    }
    // Decoded too; one that is not percent-encoded after all is kept as written.
    found.add(value).add(password).add(orFallback(() => decodeURIComponent(password), password));
  }
  return [...found].filter((text) => text.length >= MIN_KNOWN_SECRET_LENGTH);
}
