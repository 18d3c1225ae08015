// The SDK's API errors, known by their fields rather than their class, and described in one line.
// A client the caller built from its own copy of the SDK throws that copy's classes, which no `instanceof` of ours matches.

/** What the loop reads of an SDK `APIError` (and its subclasses: BadRequestError, APIConnectionError, ...). */
export interface ApiErrorFields extends Error {
  /** The HTTP status; undefined when no answer came (a connection error, an abort) and for an error event within a stream. */
  status: number | undefined;
  /** The response body, as parsed. */
  error: unknown;
  type?: string | null;
}

/** The error as an SDK API error from any copy of the SDK (every `APIError` sets `status`, `headers` and `error`), else undefined. */
export function asApiError(error: unknown): ApiErrorFields | undefined {
  return error instanceof Error && "status" in error && "headers" in error && "error" in error ? (error as ApiErrorFields) : undefined;
}

/** A 400 from the API (the SDK's BadRequestError). */
export function isBadRequest(error: unknown): error is ApiErrorFields {
  return asApiError(error)?.status === 400;
}

/** One line describing an API or network error; a failed connection names what it tried (`connect ECONNREFUSED 127.0.0.1:9`). */
export function describeError(error: unknown): string {
  const api = asApiError(error);
  // No status and no body: no answer came (an SSE `error` event mid-stream has a body and no status).
  if (api && api.status === undefined && api.error === undefined && api.name !== "APIUserAbortError") {
    const causes: string[] = [];
    for (let cause = api.cause; cause instanceof Error && causes.length < 4; cause = cause.cause) causes.push(cause.message);
    const tried = causes.filter((c) => c !== "fetch failed").join(": ");
    return oneLine(`${api.message.replace(/\.$/, "")}${tried ? `: ${tried}` : ""}`);
  }
  if (api) {
    const body = api.error as { error?: { type?: string; message?: string } } | undefined;
    const type = body?.error?.type ?? api.type;
    const message = body?.error?.message ?? api.message;
    const status = api.status !== undefined ? `${api.status} ` : "";
    return `API error ${status}${type ? `(${type}) ` : ""}${oneLine(message)}`.trim();
  }
  return oneLine(error instanceof Error ? error.message : String(error));
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, 500);
}
