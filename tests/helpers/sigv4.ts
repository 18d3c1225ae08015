// Checks an AWS Signature Version 4 (SigV4) as AWS does, from the request as received: an independent check of what the SDK signed.
import { createHash, createHmac } from "node:crypto";
import type { ProviderRequest } from "../../src/testing/index.js";

const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");
const hmac = (key: Buffer | string, text: string): Buffer => createHmac("sha256", key).update(text, "utf8").digest();
/** RFC 3986 encoding, as SigV4 wants it: encodeURIComponent plus `!'()*`. */
const rfc3986 = (text: string): string => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The credential scope and signed headers of the Authorization header, and whether the signature is the one `secret` gives. */
export function verifySigV4(request: ProviderRequest, secret: string): { valid: boolean; accessKey: string; region: string; service: string; signedHeaders: string[] } {
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(request.headers["authorization"] ?? "");
  if (!match) return { valid: false, accessKey: "", region: "", service: "", signedHeaders: [] };
  const [, accessKey, date, region, service, signed, signature] = match as unknown as string[];
  const signedHeaders = signed!.split(";");
  const [pathname, query = ""] = request.path.split("?");
  // Services other than S3 sign each path segment encoded once more.
  const canonicalUri = pathname!.split("/").map(rfc3986).join("/");
  const canonicalQuery = query.split("&").filter(Boolean).sort().join("&");
  const canonicalHeaders = signedHeaders.map((name) => `${name}:${(request.headers[name] ?? "").trim().replace(/\s+/g, " ")}\n`).join("");
  const payloadHash = request.headers["x-amz-content-sha256"] ?? sha256(request.rawBody);
  const canonical = [request.method, canonicalUri, canonicalQuery, canonicalHeaders, signed, payloadHash].join("\n");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", request.headers["x-amz-date"], scope, sha256(canonical)].join("\n");
  const key = ["aws4_request"].reduce((k, part) => hmac(k, part), [date!, region!, service!].reduce<Buffer | string>((k, part) => hmac(k, part), `AWS4${secret}`));
  return { valid: hmac(key, toSign).toString("hex") === signature, accessKey: accessKey!, region: region!, service: service!, signedHeaders };
}
