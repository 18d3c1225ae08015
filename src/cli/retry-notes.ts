// The SDK's own retries (429, 529, 5xx, a failed connection) made visible: its log lines become `retry` events of the running turn.
import type Anthropic from "@anthropic-ai/sdk";
import type { EventSink } from "../types.js";

const RESPONSE_RETRY = /\] (\S+) (\S+) failed with status (\d+) in \d+ms - retrying, (\d+) attempts? remaining/;
const CONNECTION_RETRY = /connection (failed|timed out) - retrying, (\d+) attempts? remaining/;

/**
 * A copy of `client` whose retries before the first byte are reported to `sink()` (the running turn's sink, or
 * undefined between turns) as one `retry` event each, naming the status and the URL. Its warnings and errors go to
 * `warn`, as they would go to the console at the client's default log level.
 */
export function reportRetries(client: Anthropic, sink: () => EventSink | undefined, warn: (message: string) => void): Anthropic {
  let attempt = 0;
  let counted: EventSink | undefined;
  const info = (message: string): void => {
    const response = RESPONSE_RETRY.exec(message);
    const connection = CONNECTION_RETRY.exec(message);
    if (!response && !connection) return;
    const reason = response
      ? `API error ${response[3]} from ${response[1]!.toUpperCase()} ${response[2]} (${response[4]} left)`
      : `connection ${connection![1]} to ${client.baseURL} (${connection![2]} left)`;
    const target = sink();
    if (target !== counted) [counted, attempt] = [target, 0];
    target?.({ type: "retry", attempt: ++attempt, reason, delayMs: 0 });
  };
  const quiet = (): void => {};
  return client.withOptions({ logLevel: "info", logger: { info, error: warn, warn, debug: quiet } });
}
