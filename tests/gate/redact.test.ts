// redactSecrets over a corpus of ordinary output (nothing may change) and over credentials in many spellings (none may survive), on hostile input in linear time.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { redactContent, redactSecrets, scanSecrets } from "../../src/gate/redact.js";
import { isSecretValue } from "../../src/gate/secret-env.js";
import { CREDENTIAL_CASES } from "./fixtures/credential-spellings.js";
import { ordinaryCorpus, randomText, seeded } from "./fixtures/redact-corpus.js";
import type { CorpusPart } from "./fixtures/redact-corpus.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
let corpus: CorpusPart[] | undefined;
/** Built once for the file: reading node_modules and git history is most of its cost. */
const ordinary = (): CorpusPart[] => (corpus ??= ordinaryCorpus(ROOT));

describe("redactSecrets on ordinary output", () => {
  it("redacts nothing in a corpus of git history, hashes, UUIDs, base64, bundled JS, CSS, lockfiles, JSON, tool output and code", () => {
    const parts = ordinary();
    const found = parts.flatMap(({ kind, text }) => {
      const { labels } = scanSecrets(text);
      return labels.length === 0 ? [] : [`${kind}: ${labels.join(", ")} in ${firstRedactedLine(text)}`];
    });
    const bytes = parts.reduce((sum, p) => sum + Buffer.byteLength(p.text), 0);
    const lines = parts.reduce((sum, p) => sum + p.text.split("\n").length, 0);
    console.log(`false-redaction corpus: ${(bytes / 1e6).toFixed(1)} MB, ${lines} lines, ${parts.length} kinds (${parts.map((p) => `${p.kind} ${Math.round(p.text.length / 1e3)} kB`).join(", ")}); false redactions: ${found.length}`);
    expect(found).toEqual([]);
    expect(bytes).toBeGreaterThan(3_000_000);
  });

  it("costs well under a millisecond or two for a 50 kB result without secrets", () => {
    const text = ordinary().find((p) => p.kind === "git log -p")?.text.slice(0, 50_000) ?? "";
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const started = performance.now();
      redactSecrets(text);
      times.push(performance.now() - started);
    }
    const median = times.sort((a, b) => a - b)[100] ?? 0;
    console.log(`redactSecrets on a ${text.length}-character result: median ${median.toFixed(3)} ms over 200 runs`);
    expect(median).toBeLessThan(5);
  });
});

/** The first line the redaction changes, for a failure message that shows the culprit. */
function firstRedactedLine(text: string): string {
  const line = text.split("\n").find((l) => scanSecrets(l).labels.length > 0) ?? "(spans lines)";
  return JSON.stringify(line.slice(0, 200));
}

describe("redactSecrets on credentials", () => {
  for (const family of [...new Set(CREDENTIAL_CASES.map((c) => c.family))]) {
    it(`removes every ${family} in each spelling`, () => {
      const cases = CREDENTIAL_CASES.filter((c) => c.family === family);
      const leaks = cases.flatMap((c) => {
        const out = redactSecrets(c.text);
        const leaked = c.secrets.filter((s) => out.includes(s));
        return leaked.length > 0 || !out.includes("[redacted: ") ? [`${JSON.stringify(c.text.slice(0, 120))} → ${JSON.stringify(out.slice(0, 160))}`] : [];
      });
      expect(leaks).toEqual([]);
      const exact = cases.filter((c) => c.expected !== undefined);
      expect(exact.map((c) => redactSecrets(c.text))).toEqual(exact.map((c) => c.expected));
    });
  }

  it("keeps keys, quotes and schemes readable around the marker", () => {
    const pw = `Q${randomText(seeded(3), 14)}7`;
    expect(redactSecrets(`{"password": "${pw}", "user": "ada"}`)).toBe('{"password": "[redacted: password]", "user": "ada"}');
    expect(redactSecrets(`DB_PASSWORD='${pw}'\nDB_USER=ada`)).toBe("DB_PASSWORD='[redacted: password]'\nDB_USER=ada");
    expect(redactSecrets(`db:\n  password: ${pw}  # prod\n`)).toBe("db:\n  password: [redacted: password]  # prod\n");
    expect(redactSecrets(`?access_token=${pw}&page=2`)).toBe("?access_token=[redacted: token]&page=2");
    expect(redactSecrets(`Authorization: Bearer ${pw}`)).toBe("Authorization: Bearer [redacted: authorization]");
  });

  it("replaces known values first, longest first, however they are shaped", () => {
    const key = `plain${randomText(seeded(5), 20)}`;
    expect(redactSecrets(`a ${key} b ${key.slice(0, 12)} c`, [key.slice(0, 12), key])).toBe("a [redacted: known secret] b [redacted: known secret] c");
    expect(redactSecrets("short 1234", ["1234"])).toBe("short 1234");
  });

  it("shares its shapes with the environment scrub", () => {
    const token = `ghp_${randomText(seeded(9), 36)}`;
    expect([isSecretValue(token), isSecretValue(`https://u:${token}@h/x`), isSecretValue("hello"), isSecretValue("/usr/bin:/bin")]).toEqual([true, true, false, false]);
  });
});

describe("redactContent", () => {
  it("redacts text blocks, text documents and search results, leaves images as they are, and returns the same value when nothing changed", () => {
    const token = `ghp_${randomText(seeded(11), 36)}`;
    const image = { type: "image" as const, source: { type: "base64" as const, media_type: "image/png" as const, data: `iVBOR${token}` } };
    const content = [
      { type: "text" as const, text: `token ${token}` },
      image,
      { type: "document" as const, source: { type: "text" as const, media_type: "text/plain" as const, data: `x ${token}` } },
      { type: "search_result" as const, source: "s", title: "t", content: [{ type: "text" as const, text: token }] },
    ];
    const out = redactContent(content);
    expect(JSON.stringify(out.filter((b) => b.type !== "image"))).not.toContain(token);
    expect(out[1]).toBe(image);
    expect(redactContent(`a ${token}`)).toBe("a [redacted: GitHub token]");
    const clean = [{ type: "text" as const, text: "nothing here" }];
    expect(redactContent(clean)).toBe(clean);
    expect(redactContent(undefined)).toBeUndefined();
  });
});

describe("redactSecrets on hostile input", () => {
  const MB = 1 << 20;
  const fill = (unit: string, head = ""): string => head + unit.repeat(Math.ceil(MB / unit.length)).slice(0, MB);
  const hostile: Record<string, string> = {
    "keys without values": fill("password="),
    "open quotes": fill('password:"'),
    "escaped open quotes": fill('password:\\"'),
    "YAML keys": fill("token: a"),
    "PEM headers": fill("-----BEGIN RSA PRIVATE KEY-----"),
    "a PEM body with no end": fill("QUFBQUFB\n", "-----BEGIN PRIVATE KEY-----\n"),
    "PEM headers of headers": fill("Proc-Type: 4,E\n", "-----BEGIN RSA PRIVATE KEY-----\n"),
    "one base64 line": fill("A", "-----BEGIN RSA PRIVATE KEY-----\n"),
    "schemes": fill("a://"),
    "userinfo": fill("http://u:p@"),
    "at signs": fill("@", "x://"),
    "a long token tail": fill("a", "sk-"),
    "JWT pieces": fill("eyJaaaaa."),
    "Authorization values": fill("x", "Authorization: "),
    "AWS ids and separators": fill("AKIAAAAAAAAAAAAAAAAA, "),
    "XML elements": fill("<password>x"),
    "netrc logins": fill("login a password "),
    "connection strings": fill("Password=a;"),
    "everything at once": fill("password=https://a:b@c -----BEGIN PRIVATE KEY----- eyJa.eyJb. Authorization: Bearer "),
  };
  for (const [name, text] of Object.entries(hostile)) {
    it(`finishes 1 MB of ${name} in linear time`, () => {
      const started = performance.now();
      redactSecrets(text);
      expect(performance.now() - started).toBeLessThan(1_500);
    });
  }
});
