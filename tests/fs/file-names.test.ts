// The shared key ↔ file name encoding: its readable rules, and reading names back (decomposed, or of the earlier encodings).
import { describe, expect, it } from "vitest";
import { decodeFileStem, decodeFileStemLoosely, encodeFileStem } from "../../src/fs/file-names.js";

describe("encodeFileStem", () => {
  it("writes : as #, a capital as ^ and its lowercase, and escapes only what it must", () => {
    expect(encodeFileStem("agent:main:main")).toBe("agent#main#main");
    expect(encodeFileStem("agent:main:20261201T093745")).toBe("agent#main#20261201^t093745");
    expect(encodeFileStem("Été à Zürich")).toBe("^été à ^zürich");
    expect(encodeFileStem("a/b\\c%d#e^f~g")).toBe("a%2Fb%5Cc%25d%23e%5Ef%7Eg");
    expect(encodeFileStem(".x.")).toBe("%2Ex%2E");
    expect(encodeFileStem("Straße")).toBe("^stra%C3%9Fe");
  });

  it("escapes every non-ASCII character of a key whose name would not survive Unicode normalization", () => {
    const decomposed = "cafe\u0301";
    expect(encodeFileStem(decomposed)).toBe("cafe%CC%81");
    expect(decodeFileStem(encodeFileStem(decomposed))).toBe(decomposed);
    expect(encodeFileStem("\u1100\u1161")).toBe("%E1%84%80%E1%85%A1");
  });

  it("cuts a long name on a character boundary and ends it with ~ and a hash", () => {
    const stem = encodeFileStem("é".repeat(200), 100);
    expect(Buffer.byteLength(stem)).toBeLessThanOrEqual(100);
    expect(stem).toMatch(/^é+~[0-9a-f]{32}$/);
    expect(decodeFileStem(stem)).toBeUndefined();
  });
});

describe("decoding", () => {
  it("reads a name a file system handed back decomposed as the key it was written for", () => {
    expect(decodeFileStem(encodeFileStem("agent:main:café").normalize("NFD"))).toBe("agent:main:café");
  });

  it("refuses, when strict, any name the encoding would not write", () => {
    for (const stem of ["agent%3Amain", "Main", "100%", "a:b", ".x", "^1"]) expect(decodeFileStem(stem), stem).toBeUndefined();
  });

  it("reads, when loose, the names of both earlier encodings and names typed by hand", () => {
    expect(decodeFileStemLoosely("agent%3Amain%3A20261201%54093745")).toBe("agent:main:20261201T093745");
    expect(decodeFileStemLoosely("Project Alpha")).toBe("Project Alpha");
    expect(decodeFileStemLoosely("100%")).toBe("100%");
    expect(decodeFileStemLoosely("bad%FFbyte")).toBe("bad%FFbyte");
  });
});
