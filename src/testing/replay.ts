// Replaying a cassette: a local server that answers each request with its recorded response, once it matches the recorded request.
import type { IncomingMessage, ServerResponse } from "node:http";
import { redactSecrets } from "../gate/redact.js";
import { firstDifference, normalizeBody, readCassette, type Cassette, type Exchange } from "./cassette.js";
import { listenLocal, readText, sendApiError } from "./respond.js";

/** How strict a replay is: `tolerate` names top-level request fields whose changes are not differences (`system`, `tools`...). */
export interface ReplayOptions {
  tolerate?: readonly string[];
  /** Values the recording replaced by a marker (the environment's secrets), replaced the same way in what is compared. */
  secrets?: readonly string[];
}

/** A running replay. */
export interface Replay {
  baseURL: string;
  cassette: Cassette;
  /** The differences met, one line each (`request 3: request.tools[2].description: recorded "…", now "…"`); none means a pass so far. */
  differences: string[];
  /** Recorded exchanges not yet asked for: a run that stopped short leaves some. */
  remaining(): number;
  close(): Promise<void>;
}

/**
 * Serves a cassette: each request gets the response of an unused recorded one whose normalized body is the same (a
 * transport error closes the connection). One that matches none is answered 400 with its first difference against the
 * next recorded one, also kept in `differences`.
 */
export async function replay(source: string | Cassette, options: ReplayOptions = {}): Promise<Replay> {
  const cassette = typeof source === "string" ? readCassette(source) : source;
  const pending = cassette.turns.flatMap((turn) => turn.exchanges);
  const used = new Set<number>();
  const differences: string[] = [];
  const clean = (text: string): string => redactSecrets(text, options.secrets ?? []);
  const normal = (request: Exchange["request"]): unknown => ({ path: request.path, body: normalizeBody(request.body, options.tolerate, clean) });
  let count = 0;
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname.replace(/\/+$/, "");
    const body = await readJson(req);
    count += 1;
    const now = normal({ path, body });
    const index = pending.findIndex((exchange, i) => !used.has(i) && firstDifference(normal(exchange.request), now) === undefined);
    if (index === -1) {
      const next = pending.findIndex((_exchange, i) => !used.has(i));
      const why = next === -1 ? "the recording has no more requests" : (firstDifference(normal(pending[next]!.request), now) ?? "no match");
      differences.push(`request ${count}: ${why}`);
      return sendApiError(res, 400, `replay: request ${count} differs from the recording: ${why}`);
    }
    used.add(index);
    send(res, pending[index]!.response);
  };
  const local = await listenLocal((req, res) => void answer(req, res).catch((error: Error) => sendApiError(res, 500, `replay: ${error.message}`)));
  return { ...local, cassette, differences, remaining: () => pending.length - used.size };
}

function send(res: ServerResponse, response: Exchange["response"]): void {
  if ("error" in response) {
    res.socket?.destroy();
    return;
  }
  res.writeHead(response.status, response.headers);
  res.end(response.body);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = await readText(req);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
