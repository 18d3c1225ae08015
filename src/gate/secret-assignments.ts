// Credentials named by the text around them: `password=…`, `token: …`, `"api_key": "…"`, `<password>…</password>`, netrc's `password …`, `Authorization: Bearer …`.
import { acceptAuthorization, acceptPlainValue, acceptValue, bareValue } from "./assignment-values.js";
import type { AssignmentValue } from "./assignment-values.js";

/** Replaces one credential: called with what it is (`password`, `authorization`), returns the text to put in its place. */
export type Mark = (label: string) => string;

/**
 * `text` with the value of every secret-named key that holds a credential replaced by `mark`
 * (`password=…`, `DB_PASSWORD='…'`, `  token: …`, `"client_secret": "…"`, `?access_token=…&`),
 * the key, separator and quotes kept; and the text of elements named so (`<password>…</password>`)
 * and netrc's passwords. Code that only names a secret (`const password = input.value`,
 * `token: string;`) is left alone: see `acceptValue`.
 */
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

function redactNetrc(text: string, mark: Mark): string {
  if (!text.includes("login")) return text;
  return text.replace(NETRC, (match: string, word: string, space: string, value: string) => (acceptPlainValue(value) ? `${word}${space}${mark("password")}` : match));
}

/** An XML element named like a secret holding text (`<password>…</password>`, Maven's `<passphrase>`, `<apiKey>`). */
const ELEMENT = /<([A-Za-z][\w.:-]{0,60})>([^<\r\n]{1,512})<\/\1>/g;

function redactElements(text: string, mark: Mark): string {
  if (!text.includes("</")) return text;
  return text.replace(ELEMENT, (match: string, name: string, value: string) => {
    const word = ELEMENT_NAME.exec(name)?.[0];
    const label = word === undefined ? null : keywordLabel(name, name.length - word.length, word);
    return label !== null && acceptPlainValue(value.trim()) ? `<${name}>${mark(label)}</${name}>` : match;
  });
}

/** `text` with every `Authorization:` or `Proxy-Authorization:` credential replaced by `mark`, the scheme kept (`Bearer [redacted: authorization]`). */
export function redactAuthorization(text: string, mark: Mark): string {
  if (!/uthorization|UTHORIZATION/.test(text)) return text;
  return text.replace(AUTHORIZATION, (match: string, head: string, scheme: string | undefined, value: string) =>
    acceptAuthorization(scheme, value) ? `${head}${scheme ?? ""}${mark("authorization")}` : match,
  );
}

const capital = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);
const spellings = (word: string): string[] => [word, word.toUpperCase(), capital(word)];
/** `key` names a secret only after one of these: `api_key`, `accessKey`, `SECRET_KEY`, `PrivateKey`, `auth-key`. */
const QUALIFIED_KEYS = ["api", "access", "secret", "private", "auth"].flatMap((q) =>
  ["", "_", "-"].flatMap((join) => [`${q}${join}key`, `${q.toUpperCase()}${join}KEY`, `${q}${join}Key`, `${capital(q)}${join}Key`]),
);
/** The secret-naming words a key ends with, as literals in their usual spellings: a scan for literals is fast. */
const LAST_WORDS = [...["pass(?:word|wd|phrase)?", "pwd", "secret", "token"].flatMap(spellings), ...QUALIFIED_KEYS];
/** The secret-naming word an element's name ends with. */
const ELEMENT_NAME = new RegExp(`(?:${LAST_WORDS.join("|")})$`);

/**
 * The last word of a secret-named key (nothing of the key follows: `passwordField`, `max_tokens`,
 * `password_hash` are other things), its closing quote if any (a backslash-escaped one too, for
 * JSON inside a string), `=`, `:` or `:=` with spaces or tabs around it, and a value: double-,
 * escaped-double- or single-quoted, or bare up to the next space or quote (a back-quoted word is a
 * code span in prose). Every part is bounded, so the scan is linear; `keywordLabel` then checks the
 * word starts a key part.
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

/**
 * What the secret-naming `keyword` found at `start` names (`password`, `API key`), or null when it
 * names none. The short ones and `key` must start a key part: lower or upper case after no letter
 * or digit (`db_pass`, `MYSQL_PWD`, `apiKey`), capitalised after no capital (`dbPass`), so `bypass`,
 * `compass` and `monkey` are not secrets; the long ones may end a glued word (`PGPASSWORD`,
 * `csrftoken`, `clientsecret`).
 */
function keywordLabel(text: string, start: number, keyword: string): string | null {
  const before = text.charAt(start - 1);
  const letters = keyword.toLowerCase();
  const glued = /^(?:password|passwd|passphrase|secret|token)$/.test(letters);
  if (!glued && (/^[A-Z][a-z]/.test(keyword) ? /[A-Z]/.test(before) : /[A-Za-z0-9]/.test(before))) return null;
  return LABELS[letters === "_auth" ? letters : letters.replace(/[_-]/g, "")] ?? null;
}

/** `Authorization:` and `Proxy-Authorization:` as a header, a JSON key or a keyword argument; the value runs to the end of the line or a quote. */
const AUTHORIZATION = /(?<![A-Za-z0-9_-])((?:proxy-)?authorization(?:\\?["'])?[ \t]*[:=][ \t]*(?:\\?["'])?)((?:basic|bearer|token|digest|negotiate|ntlm|bot|aws4-hmac-sha256|hmac)[ \t]+)?([^\s"'`\\][^\r\n"'`\\]{0,2000})/gi;

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
