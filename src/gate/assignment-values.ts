// Which values of secret-named keys are credentials: by their form (literals, references, masks, code) and by where they stand (a configuration line, YAML, code).

/** Values that name a type, a literal or nothing: `password: string`, `token: null`, `secret: true`. */
const NOT_VALUES = new Set([
  "null", "nil", "none", "undefined", "true", "false", "yes", "no", "on", "off", "string", "str", "number", "int", "integer", "boolean",
  "bool", "any", "unknown", "object", "bytes", "required", "optional", "redacted", "hidden", "masked", "empty",
]);
/** Templates and references, not values: `${DB_PASSWORD}`, `{{ secrets.X }}`, `<token>`, `%(pw)s`, `$PASS`, YAML anchors and block scalars. */
const REFERENCE = /^[$%{<[(*&!|>=\\#@]|\$\{|\{\{|<%|%\(/;
/** Masks and elisions: `***`, `xxxx`, `•••`, `sk-ant-...`. */
const MASKED = /^[*xX.\u2022\u2026_?-]+$|\.\.\.|\u2026|xxxx|XXXX/;
/** A word that names a secret: a value holding one is a name or a label (`password = password`, `"Enter a password"`), not a secret. */
const SECRET_WORD = /pass(?:word|wd)?|secret|token/i;
/** Code: a member expression (`input.value`, `process.env.X`), a call, an index, a block, a condition, a statement's end or a next statement. */
const CODE = /^[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+$|[()[\]{}<>;]|\|\||&&|,$/;

/** What the assignment matched, as `acceptValue` judges it. */
export interface AssignmentValue {
  /** The key as the text has it, back to its start (`spring.datasource.password`). */
  key: string;
  /** Whether the key is quoted (`"password":`): JSON, or a dictionary literal. */
  keyQuoted: boolean;
  /** What stands between key and value: `=`, `: `, `" = `... */
  separator: string;
  value: string;
  quoted: boolean;
  /** The key starts its line (`export` aside): an env, INI or YAML file rather than code. */
  lineStart: boolean;
  /** The text right after the value, to the end of its line. */
  rest: string;
}

/**
 * Whether the value of a secret-named key is a credential to redact. Never: short values (1–3
 * characters), literals and type names, references and templates, masks and elisions, an
 * identifier that repeats a secret word (`password = password`, `token: ProgressTokenSchema$1`,
 * `secretName: my-secret`), quoted text with spaces (a label), a bare value that is code (a call,
 * a member expression, a statement end) or that, after a spaced separator, does not end its line.
 * Then, by where it stands: any value where only configuration writes one (`KEY=value`, a key
 * that starts its line, JSON's `"key": "value"`); a value with a digit or a symbol after YAML's
 * indented `key: value` (`progressToken: messageId` ends a line of code too); elsewhere, in code
 * (`token: "alive"`, `x = "…"` in a function), only one of 8+ characters with a digit and a letter.
 */
export function acceptValue(found: AssignmentValue): boolean {
  const { key, value, quoted, separator, rest } = found;
  if (value.length < 4 || NOT_VALUES.has(value.toLowerCase()) || REFERENCE.test(value) || MASKED.test(value)) return false;
  if (/^[A-Za-z_$][\w$.?-]*$/.test(value) && SECRET_WORD.test(value)) return false;
  if (key === "PWD" || key === "OLDPWD") return false;
  // Quoted text with spaces is a label or a message (`"password": "Enter a password"`), except on a configuration line of its own.
  if (quoted && /\s/.test(value) && !(found.lineStart && !SECRET_WORD.test(value))) return false;
  if (!quoted && (CODE.test(value) || (/[ \t]/.test(separator) && !/^[ \t]*(?:$|#|\/\/)/.test(rest)))) return false;
  const where = placeOf(found);
  if (where === "configuration") return true;
  if (where === "yaml") return /[0-9]|[^A-Za-z_.-]/.test(value);
  return value.length >= 8 && /[0-9]/.test(value) && /[A-Za-z]/.test(value);
}

/** Where an assignment stands, by its form: a configuration line, an indented YAML `key: value`, or code. */
function placeOf({ keyQuoted, separator, quoted, lineStart, rest }: AssignmentValue): "configuration" | "yaml" | "code" {
  const colon = /^\\?["']?[ \t]*:/.test(separator);
  // A quoted value followed by `;`, `,` or `)` ends a statement or an argument: code, wherever its line starts.
  if (quoted && /^[ \t]*[;,)]/.test(rest)) return "code";
  if (lineStart || (quoted && keyQuoted && colon)) return "configuration";
  if (quoted || /^["'`]/.test(rest)) return "code";
  if (!/[ \t]/.test(separator)) return "configuration";
  return colon ? "yaml" : "code";
}


/**
 * Whether an Authorization value is a credential: after a scheme (`Bearer x`), any word of 6+
 * characters with a digit or a symbol (or 20+) that is not a reference, a mask or a word such
 * as `secret`; with no scheme, a token-like word of 12+ characters with a digit
 * (`authorization: string;` and `headers.authorization = token` are code).
 */
export function acceptAuthorization(scheme: string | undefined, value: string): boolean {
  const first = value.split(/[ \t]/, 1)[0] ?? "";
  if (REFERENCE.test(first) || MASKED.test(first) || /^[a-z_.-]*(?:secret|token)[a-z_.-]*$/i.test(first)) return false;
  if (scheme !== undefined) return first.length >= 6 && !/[;,]$/.test(first) && (first.length >= 20 || /[0-9]|[^A-Za-z_.-]/.test(first));
  return /^(?=.*[0-9])[A-Za-z0-9._~+/=:-]{12,}$/.test(first);
}

/**
 * The value a bare match stands for, from the character before its key: in a query string
 * (`?token=abc&next=1`) it ends at `&` or `#`; in a connection string (`Server=db;Password=x;`,
 * `"Password=x;Server=db"`) at `;`; elsewhere a `;` is code's. Its trailing escapes (`\n` of `"API_KEY=x\n"` in code) are not part of it.
 */
export function bareValue(before: string, raw: string): string {
  let value = raw;
  if (before === "?" || before === "&") value = value.split(/[&#]/, 1)[0] ?? value;
  else if (before === ";" || ((before === "" || /["'\n]/.test(before)) && /^[^;]+;[ \t]*[A-Za-z][\w ]{0,30}=/.test(value))) value = value.split(";", 1)[0] ?? value;
  let end = value.length;
  while (end >= 2 && value.charAt(end - 2) === "\\" && "nrt".includes(value.charAt(end - 1))) end -= 2;
  return value.slice(0, end);
}

/** Whether a value standing alone (an XML element's text, a netrc password) is a credential: not a literal, a reference or a mask, 4+ characters. */
export function acceptPlainValue(value: string): boolean {
  if (value.length < 4 || NOT_VALUES.has(value.toLowerCase()) || REFERENCE.test(value) || MASKED.test(value)) return false;
  return !(/^[A-Za-z_$][\w$.?-]*$/.test(value) && SECRET_WORD.test(value));
}
