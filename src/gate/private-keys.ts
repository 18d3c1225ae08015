// Private keys in text: PEM blocks (`-----BEGIN … PRIVATE KEY-----`, PGP's too), whole, cut short, or escaped inside JSON; found in one linear scan.

const HEADER = /-----BEGIN ((?:[A-Z0-9]+ ){0,4})PRIVATE KEY(?: BLOCK)?-----/g;
/**
 * One line of the body after a header: a line break (real, or `\n` escaped in a JSON string, or
 * spaces where a key was pasted on one line) followed by a base64 line or an RFC 1421 header
 * (`Proc-Type: 4,ENCRYPTED`). Matched line by line from a loop: one expression repeating over
 * megabytes of lines would exhaust the regular expression engine's stack.
 */
const BODY_LINE = /(?:\r?\n|\\r\\n|\\n|[ \t]+)[ \t]*(?:[A-Za-z][A-Za-z0-9-]{0,29}: [^\r\n\\]{0,200}|[A-Za-z0-9+/=]{1,65536})?/y;
const FOOTER = /[ \t]*(?:\r?\n|\\r\\n|\\n)?[ \t]*-----END (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----/y;
/** Key lines are 64 or 70 characters; prose after a header that is only quoted never has a 40-character base64 run. */
const KEY_LINE = /[A-Za-z0-9+/=]{40}/;

/** One private key found in text: where it starts and ends (the footer included when present). */
export interface KeySpan {
  start: number;
  end: number;
}

/**
 * The private keys in `text`, in order, not overlapping: each header with the body that follows
 * it, through its footer when one ends the body. A header counts only when its body holds a
 * base64 run of 40+ characters (a real key, or one cut short by `head`), so code and docs that
 * quote a header are left alone.
 */
export function findPrivateKeys(text: string): KeySpan[] {
  if (!text.includes("PRIVATE KEY")) return [];
  const spans: KeySpan[] = [];
  HEADER.lastIndex = 0;
  for (let header = HEADER.exec(text); header !== null; header = HEADER.exec(text)) {
    const bodyEnd = bodyEndFrom(text, HEADER.lastIndex);
    if (!KEY_LINE.test(text.slice(HEADER.lastIndex, bodyEnd))) continue;
    FOOTER.lastIndex = bodyEnd;
    const end = FOOTER.test(text) ? FOOTER.lastIndex : bodyEnd;
    spans.push({ start: header.index, end });
    HEADER.lastIndex = end;
  }
  return spans;
}

/** Where the body that starts at `at` ends: after the last line `BODY_LINE` takes. Each line moves forward, so the loop is linear. */
function bodyEndFrom(text: string, at: number): number {
  let end = at;
  for (;;) {
    BODY_LINE.lastIndex = end;
    if (BODY_LINE.exec(text) === null || BODY_LINE.lastIndex === end) return end;
    end = BODY_LINE.lastIndex;
  }
}
