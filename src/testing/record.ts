// Recording a cassette: a fetch wrapper that writes each model request and its response, streamed ones as they were, credentials removed.
import { appendFileSync, writeFileSync } from "node:fs";
import { redactSecrets } from "../gate/redact.js";
import { CASSETTE_VERSION, cleanStrings, type Exchange } from "./cassette.js";

/** Response headers kept: what the client reads of a response, never a credential. */
const KEPT_HEADERS = ["content-type", "request-id", "retry-after", "x-should-retry", "anthropic-ratelimit-requests-remaining"];

/** A cassette being written. */
export interface CassetteRecorder {
  /** Wraps a transport: pass it to `createClient({ env, wrapFetch: recorder.wrap })`. */
  wrap(fetch: typeof globalThis.fetch): typeof globalThis.fetch;
  /** Marks the start of a turn: the user's text, its session, settings of that turn alone (the REPL's /effort), and a cron job's run. */
  turn(text: string, sessionKey?: string, options?: Record<string, unknown>, run?: { job: string; at: string }): void;
  /** The records of the session the next turn goes on with, for a replay to start from. */
  session(key: string, records: readonly unknown[]): void;
}

/**
 * Starts a cassette in `file` (replacing it): each Messages request through `wrap` and its response as received, every
 * attempt an exchange. Request headers are not kept, and `secrets` and credential shapes are replaced in every string,
 * so the same cleaning of a replay's requests compares equal.
 */
export function recordCassette(file: string, options: { secrets?: readonly string[]; argv?: readonly string[] } = {}): CassetteRecorder {
  const clean = (text: string): string => redactSecrets(text, options.secrets ?? []);
  writeFileSync(file, `${JSON.stringify({ cassette: CASSETTE_VERSION, created: new Date().toISOString(), ...(options.argv && { argv: options.argv }) })}\n`);
  const write = (line: object): void => appendFileSync(file, `${JSON.stringify(line)}\n`);
  return {
    turn: (text, sessionKey, turnOptions, run) => write({ turn: { text: clean(text), ...(sessionKey !== undefined && { sessionKey }), ...(turnOptions && { options: turnOptions }), ...run } }),
    session: (key, records) => write({ session: { key, records: cleanStrings(records, clean) } }),
    wrap: (inner) => async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (!/\/v1\/messages(\/count_tokens)?$/.test(url.pathname)) return inner(input, init);
      const request = { path: url.pathname, body: cleanStrings(parseBody(init?.body), clean) };
      // Taken in the order sent; written once the response is whole, so turns running side by side stay apart.
      let response: Response;
      try {
        response = await inner(input, init);
      } catch (error) {
        write({ request, response: { error: error instanceof Error ? error.message : String(error) } } satisfies Exchange);
        throw error;
      }
      const headers = Object.fromEntries(KEPT_HEADERS.flatMap((name) => (response.headers.has(name) ? [[name, response.headers.get(name)!]] : [])));
      if (response.body === null) {
        write({ request, response: { status: response.status, headers, body: "" } } satisfies Exchange);
        return response;
      }
      const [mine, theirs] = response.body.tee();
      void new Response(mine).text().then(
        (body) => write({ request, response: { status: response.status, headers, body: clean(body) } } satisfies Exchange),
        (error: unknown) => write({ request, response: { error: error instanceof Error ? error.message : String(error) } } satisfies Exchange),
      );
      return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
    },
  };
}

function parseBody(body: unknown): unknown {
  if (typeof body !== "string") return body === undefined || body === null ? null : String(body);
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}
