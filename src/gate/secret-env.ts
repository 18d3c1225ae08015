// Which environment variables are secrets: by name or by value. Children never see them; tool results never show them.

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|(^|_)PASS(_|$)|(^|_)PWD$|DSN|WEBHOOK/i;
/** Shell variables that the pattern above would catch but that hold a folder, not a secret. */
const NOT_SECRET_NAMES = new Set(["PWD", "OLDPWD"]);

/** A URL carrying a password (`scheme://user:pass@host`, `redis://:pass@host`): the password is in the text. */
const CREDENTIAL_URL = /^[a-z][a-z0-9+.-]*:\/\/([^/?#@\s:]*):([^/?#@\s]+)@/i;

/**
 * Prefixes that only issued keys and tokens have (Anthropic, OpenAI project keys, GitHub, GitLab, Slack,
 * AWS access key ids), and a PEM private key: a value so shaped is a secret whatever its variable is called.
 */
const CREDENTIAL_SHAPE =
  /^(sk-ant-|sk-proj-|[sr]k_(live|test)_|gh[pousr]_|github_pat_|glpat-|xox[abprs]-|npm_[A-Za-z0-9]{30,}|hf_[A-Za-z0-9]{30,}|AIza[0-9A-Za-z_-]{30,}|AKIA[0-9A-Z]{16}$|eyJ[\w-]+\.eyJ[\w-]+\.|-----BEGIN [A-Z ]*PRIVATE KEY|https:\/\/hooks\.slack\.com\/)/;

/** A connection string or URL that carries a secret as a parameter (`jdbc:...?password=`, `...&token=`). */
const CREDENTIAL_PARAMETER = /[?&;](password|passwd|pwd|token|secret|api[_-]?key|access[_-]?token)=[^&;\s]+/i;

/** Shorter values are not redacted: replacing every "pw" or "1234" in a tool result would garble it. */
const MIN_REDACTED_LENGTH = 8;

/**
 * Whether a variable's name marks it as a secret: `ANTHROPIC_*`, `MINICLAW_DATABASE_*` (the sessions' database
 * is the transcript, which tools never write, even with trust authentication and no password in the URL), or KEY, TOKEN, SECRET, PASSWORD, PASSWD,
 * CREDENTIAL, DSN, WEBHOOK in it, or a PASS or PWD word (`DB_PASS`, `MYSQL_PWD`; not `PWD` itself).
 */
export function isSecretName(name: string): boolean {
  return name.startsWith("ANTHROPIC_") || name.startsWith("MINICLAW_DATABASE_") || (SECRET_NAME.test(name) && !NOT_SECRET_NAMES.has(name));
}

/** Whether a value looks like a credential whatever its name: a URL with a password, or a known key or token shape. */
export function isSecretValue(value: string): boolean {
  const trimmed = value.trim();
  return CREDENTIAL_URL.test(trimmed) || CREDENTIAL_SHAPE.test(trimmed) || CREDENTIAL_PARAMETER.test(trimmed);
}

/** Whether a variable is a secret by its name or by its value: what `scrubEnv` removes. */
export function isSecretVariable(name: string, value: string | undefined): boolean {
  return isSecretName(name) || (value !== undefined && isSecretValue(value));
}

/**
 * A copy of `env` without `ANTHROPIC_*`, without any variable whose name contains KEY, TOKEN, SECRET,
 * PASSWORD, PASSWD or CREDENTIAL (any case), and without any whose value looks like a credential
 * (`DATABASE_URL=postgres://u:p@h/db`, `sk-ant-...`): what child processes of the agent may see.
 */
export function scrubEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name, value]) => !isSecretVariable(name, value)));
}

/**
 * The texts to redact from every tool result: the values of the secret variables of `env` (not plain
 * URLs such as a base URL, which is secret by name only), and the password of a credential URL on its
 * own; each only when long enough (8+ characters) to redact without garbling ordinary output.
 */
export function secretValues(env: Record<string, string | undefined>): string[] {
  const found = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (!value || !isSecretVariable(name, value)) continue;
    const password = CREDENTIAL_URL.exec(value.trim())?.[2];
    if (password !== undefined) {
      found.add(value);
      found.add(password);
      found.add(safeDecode(password));
    } else if (!name.endsWith("_URL")) found.add(value);
  }
  return [...found].filter((text) => text.length >= MIN_REDACTED_LENGTH);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
