// Credentials named by the text around them: `password=…`, `token: …`, `"api_key": "…"`, `<password>…</password>`, netrc's `password …`, `Authorization: Bearer …`.

/** Replaces one credential: called with what it is (`password`, `authorization`), returns the text to put in its place. */
export type Mark = (label: string) => string;

/** `text` with the value of every secret-named key that holds a credential (`DB_PASSWORD='…'`, `"api_key": "…"`, `?token=…&`) replaced by `mark`, key and quotes kept. */
export function redactAssignments(text: string, mark: Mark): string {
  const assigned = text.replace(ASSIGNMENT, (match: string, word: string, separator: string, ...rest: unknown[]) => {
    const groups = rest.slice(0, 4) as Array<string | undefined>;
    const offset = rest[4] as number;
    const label = keywordLabel(text, offset, word);
    if (label === null) return match;
    const kind = groups.findIndex((v) => v !== undefined);
    const raw = groups[kind] ?? "";
    const closing = [1, 2, 1, 0][kind] ?? 0;
    const valueStart = offset + match.length - raw.length - closing;
    const keyStart = keyStartBefore(text, offset);
    // A window, not a search back to the line's start: that would be quadratic on a text without line breaks.
    const before = text.slice(Math.max(0, keyStart - 16), keyStart);
    const found: AssignmentValue = {
      key: text.slice(keyStart, offset + word.length),
      keyQuoted: /["']/.test(text.charAt(keyStart - 1)) && /^\\?["']/.test(separator),
      separator,
      value: kind === 3 ? bareValue(text.charAt(keyStart - 1), raw) : raw,
      quoted: kind !== 3,
      lineStart: /(?:^|\n)(?:export[ \t]+)?$/.test(before),
      rest: restOfLine(text, valueStart + raw.length + closing),
    };
    if (!acceptValue(found)) return match;
    const cut = valueStart - offset;
    return match.slice(0, cut) + mark(label) + match.slice(cut + found.value.length);
  });
  return redactElements(redactNetrc(assigned, mark), mark);
}

/** netrc's `machine host login name password …`: the value follows a space, after a login on the same line. */
const NETRC = /(?<=\blogin[ \t]+[^\s]{1,256}[ \t]+)(password|passwd)([ \t]+)([^\s]{1,512})/g;
/** An XML element named like a secret holding text (`<password>…</password>`, Maven's `<passphrase>`, `<apiKey>`). */
const ELEMENT = /<([A-Za-z][\w.:-]{0,60})>([^<\r\n]{1,512})<\/\1>/g;

function redactNetrc(text: string, mark: Mark): string {
  if (!text.includes("login")) return text;
  return text.replace(NETRC, (match: string, word: string, space: string, value: string) => (acceptPlainValue(value) ? `${word}${space}${mark("password")}` : match));
}

function redactElements(text: string, mark: Mark): string {
  if (!text.includes("</")) return text;
  return text.replace(ELEMENT, (match: string, name: string, value: string) => {
    const word = ELEMENT_NAME.exec(name)?.[0];
    const label = word === undefined ? null : keywordLabel(name, name.length - word.length, word);
    return label !== null && acceptPlainValue(value.trim()) ? `<${name}>${mark(label)}</${name}>` : match;
  });
}

/** `Authorization:` and `Proxy-Authorization:` as a header, a JSON key or a keyword argument; the value runs to the end of the line or a quote. */
const AUTHORIZATION = /(?<![A-Za-z0-9_-])((?:proxy-)?authorization(?:\\?["'])?[ \t]*[:=][ \t]*(?:\\?["'])?)((?:basic|bearer|token|digest|negotiate|ntlm|bot|aws4-hmac-sha256|hmac)[ \t]+)?([^\s"'`\\][^\r\n"'`\\]{0,2000})/gi;

/** `text` with every `Authorization:` or `Proxy-Authorization:` credential replaced by `mark`, the scheme kept (`Bearer [redacted: authorization]`). */
export function redactAuthorization(text: string, mark: Mark): string {
  if (!/uthorization|UTHORIZATION/.test(text)) return text;
  return text.replace(AUTHORIZATION, (match: string, head: string, scheme: string | undefined, value: string) =>
    acceptAuthorization(scheme, value) ? `${head}${scheme ?? ""}${mark("authorization")}` : match,
  );
}

const capital = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);
/** `key` names a secret only after one of these: `api_key`, `accessKey`, `SECRET_KEY`, `PrivateKey`, `auth-key`. */
const QUALIFIED_KEYS = ["api", "access", "secret", "private", "auth"].flatMap((q) =>
  ["", "_", "-"].flatMap((join) => [`${q}${join}key`, `${q.toUpperCase()}${join}KEY`, `${q}${join}Key`, `${capital(q)}${join}Key`]),
);
/** The secret-naming words a key ends with, as literals in their usual spellings: a scan for literals is fast. */
const LAST_WORDS = [...["pass(?:word|wd|phrase)?", "pwd", "secret", "token"].flatMap((w) => [w, w.toUpperCase(), capital(w)]), ...QUALIFIED_KEYS];
const ELEMENT_NAME = new RegExp(`(?:${LAST_WORDS.join("|")})$`);

/**
 * The last word of a secret-named key (nothing of the key follows: `max_tokens` is another thing), its closing quote, `=`, `:` or `:=`, and a value, quoted
 * or bare up to a space or quote. Every part is bounded, so the scan is linear; `keywordLabel` checks the word starts a key part.
 */
const ASSIGNMENT = new RegExp(
  `(${LAST_WORDS.join("|")}|_auth)(?![A-Za-z0-9_])((?:\\\\?["'])?[ \\t]*(?::=|[:=])[ \\t]*)(?:"((?:[^"\\\\\\r\\n]|\\\\.){1,1000})"|\\\\"([^"\\\\\\r\\n]{1,1000})\\\\"|'([^'\\r\\n]{1,1000})'|([^\\s"'\`]{1,1000}))`,
  "g",
);

/** The label of each keyword, by its letters in lower case. */
const LABELS: Readonly<Record<string, string>> = {
  pass: "password", password: "password", passwd: "password", passphrase: "password", pwd: "password", secret: "secret", token: "token",
  apikey: "API key", accesskey: "access key", secretkey: "secret key", privatekey: "private key", authkey: "auth key", _auth: "credential",
};

/** What `keyword` at `start` names (`password`, `API key`), or null: short ones and `key` start a key part (`db_pass`, not `bypass`), long ones may be glued (`PGPASSWORD`). */
function keywordLabel(text: string, start: number, keyword: string): string | null {
  const before = text.charAt(start - 1);
  const letters = keyword.toLowerCase();
  const glued = /^(?:password|passwd|passphrase|secret|token)$/.test(letters);
  if (!glued && (/^[A-Z][a-z]/.test(keyword) ? /[A-Z]/.test(before) : /[A-Za-z0-9]/.test(before))) return null;
  return LABELS[letters === "_auth" ? letters : letters.replace(/[_-]/g, "")] ?? null;
}

/** The text from `at` to the end of its line, at most 200 characters (a scan to a far line end, per match, would be quadratic). */
function restOfLine(text: string, at: number): string {
  const window = text.slice(at, at + 200);
  const end = window.indexOf("\n");
  return end === -1 ? window : window.slice(0, end);
}

/** Where the key whose keyword starts at `at` starts (`spring.datasource.` of `spring.datasource.password`), at most 64 characters back. */
function keyStartBefore(text: string, at: number): number {
  let start = at;
  while (start > 0 && at - start < 64 && /[A-Za-z0-9_.-]/.test(text.charAt(start - 1))) start--;
  return start;
}

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

/** What the assignment matched; `lineStart`: the key starts its line (`export` aside), as in configuration rather than code. */
interface AssignmentValue {
  key: string;
  keyQuoted: boolean;
  separator: string;
  value: string;
  quoted: boolean;
  lineStart: boolean;
  rest: string;
}

/** Whether a value standing alone (an XML element's text, a netrc password) is a credential: 4+ characters, not a literal, a reference, a mask or a secret word. */
function acceptPlainValue(value: string): boolean {
  if (value.length < 4 || NOT_VALUES.has(value.toLowerCase()) || REFERENCE.test(value) || MASKED.test(value)) return false;
  return !(/^[A-Za-z_$][\w$.?-]*$/.test(value) && SECRET_WORD.test(value));
}

/**
 * Whether the value of a secret-named key is a credential: never a label, a literal, a reference or code; then by where it stands (`placeOf`): any value
 * in configuration, one with a digit or a symbol in YAML (`progressToken: messageId` ends a line of code too), in code only 8+ characters with a digit and a letter.
 */
function acceptValue(found: AssignmentValue): boolean {
  const { key, value, quoted, separator, rest } = found;
  if (!acceptPlainValue(value) || key === "PWD" || key === "OLDPWD") return false;
  // Quoted text with spaces is a label or a message (`"password": "Enter a password"`), except on a configuration line of its own.
  if (quoted && /\s/.test(value) && !(found.lineStart && !SECRET_WORD.test(value))) return false;
  if (!quoted && (CODE.test(value) || (/[ \t]/.test(separator) && !/^[ \t]*(?:$|#|\/\/)/.test(rest)))) return false;
  const where = placeOf(found);
  if (where === "configuration") return true;
  if (where === "yaml") return /[0-9]|[^A-Za-z_.-]/.test(value);
  return value.length >= 8 && /[0-9]/.test(value) && /[A-Za-z]/.test(value);
}

/** Where an assignment stands, by its form: configuration (`KEY=value`, a key starting its line, JSON's `"key": "value"`), indented YAML, or code. */
function placeOf({ keyQuoted, separator, quoted, lineStart, rest }: AssignmentValue): "configuration" | "yaml" | "code" {
  const colon = /^\\?["']?[ \t]*:/.test(separator);
  // A quoted value followed by `;`, `,` or `)` ends a statement or an argument: code, wherever its line starts.
  if (quoted && /^[ \t]*[;,)]/.test(rest)) return "code";
  if (lineStart || (quoted && keyQuoted && colon)) return "configuration";
  if (quoted || /^["'`]/.test(rest)) return "code";
  if (!/[ \t]/.test(separator)) return "configuration";
  return colon ? "yaml" : "code";
}

/** Whether an Authorization value is a credential: after a scheme, a word of 6+ characters with a digit or a symbol (or 20+); with none, a token-like word of 12+ with a digit. */
function acceptAuthorization(scheme: string | undefined, value: string): boolean {
  const first = value.split(/[ \t]/, 1)[0] ?? "";
  if (REFERENCE.test(first) || MASKED.test(first) || /^[a-z_.-]*(?:secret|token)[a-z_.-]*$/i.test(first)) return false;
  if (scheme !== undefined) return first.length >= 6 && !/[;,]$/.test(first) && (first.length >= 20 || /[0-9]|[^A-Za-z_.-]/.test(first));
  return /^(?=.*[0-9])[A-Za-z0-9._~+/=:-]{12,}$/.test(first);
}

/** The value a bare match stands for, by the character before its key: a query string's ends at `&` or `#`, a connection string's at `;`; trailing escapes (`\n`) dropped. */
function bareValue(before: string, raw: string): string {
  let value = raw;
  if (before === "?" || before === "&") value = value.split(/[&#]/, 1)[0] ?? value;
  else if (before === ";" || ((before === "" || /["'\n]/.test(before)) && /^[^;]+;[ \t]*[A-Za-z][\w ]{0,30}=/.test(value))) value = value.split(";", 1)[0] ?? value;
  let end = value.length;
  while (end >= 2 && value.charAt(end - 2) === "\\" && "nrt".includes(value.charAt(end - 1))) end -= 2;
  return value.slice(0, end);
}
