/**
 * Sends one Chat Completions request with the platform's fetch and hands the answer back the way
 * the `openai` package would: the Response of a success, or the package's own error classes for a
 * failure (`APIError.generate` for an HTTP error, `APIConnectionTimeoutError`, `APIUserAbortError`,
 * `APIConnectionError`), so model-client.ts still reads the answer with the package (`response.json()`
 * as its parser does, `Stream.fromSSEResponse` for SSE) and classifies its errors.
 *
 * Why not the client's `post`: its request path rebuilt and validated the headers from five
 * sources, redacted the URL for a log line nobody reads, and set up per-request bookkeeping on
 * every turn, about 0.4 ms of a model turn's CPU (scripts/bench/profile.ts --chat), while a run
 * needs none of it: the body is text we joined, the headers are fixed per endpoint and key, and
 * retries and timeouts are ours (model-client.ts). The package's `post` sent a string body as it
 * is, so the body on the wire is what it was; the package's own User-Agent and X-Stainless-*
 * headers are no longer sent (the protocol needs only the key and the content type).
 */
import OpenAI from "openai";
import type { ModelTarget } from "./model-config.ts";

/** One attempt's request. */
export interface ModelFetch {
  body: string;
  /** Ends the request: the caller's timer (timed out) or the caller's own signal (cancelled). */
  signal: AbortSignal;
  /** Whether an abort was the caller's timer. */
  timedOut: () => boolean;
  /** The caller's own signal: its abort is a cancellation, not a timeout. */
  callerSignal: AbortSignal | undefined;
}

/** The chat completions URL of an OpenAI-compatible `/v1` base, as the package joins it. */
export const completionsUrl = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, "")}/chat/completions`;

/**
 * POSTs the body and resolves with a 2xx Response whose body is still unread; rejects with the
 * package's error for anything else.
 */
export async function fetchModel(target: ModelTarget, request: ModelFetch): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(completionsUrl(target.baseUrl), {
      method: "POST",
      headers: { authorization: `Bearer ${target.apiKey}`, "content-type": "application/json", accept: "application/json" },
      body: request.body,
      signal: request.signal,
    });
  } catch (error) {
    throw connectionError(error, request.timedOut(), request.callerSignal);
  }
  if (response.ok) return response;
  // As the package reads a failed answer (client.mjs makeRequest): JSON if it parses, else the text.
  const text = await response.text().catch((error: unknown) => String(error));
  const json = safeJson(text);
  throw OpenAI.APIError.generate(response.status, json, json === undefined ? text : undefined, response.headers);
}

function connectionError(error: unknown, timedOut: boolean, callerSignal: AbortSignal | undefined): Error {
  if (timedOut) return new OpenAI.APIConnectionTimeoutError();
  if (callerSignal?.aborted === true) return new OpenAI.APIUserAbortError();
  return new OpenAI.APIConnectionError({ message: error instanceof Error ? error.message : String(error), cause: error instanceof Error ? error : undefined });
}

function safeJson(text: string): object | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
