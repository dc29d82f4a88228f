/**
 * The Streamable HTTP transport (MCP 2025-03-26 and later, "Transports"): every message is a
 * POST to the one endpoint with `Accept: application/json, text/event-stream`; a request's answer
 * is either a JSON body or an SSE stream that carries the response with the matching id, possibly
 * after notifications. A session id the server issues on initialize is sent on every later
 * message, with the negotiated protocol version.
 *
 * A request the server sends on a response stream (elicitation, sampling) is answered through the
 * call's answerer (answer-server.ts), and its answer POSTed back as a JSON-RPC response under the
 * same session; the stream is read on meanwhile.
 */
import { AnswerFailed, answerServerRequest } from "./answer-server.ts";
import { boundedText } from "./bounded-text.ts";
import { httpError } from "./http-error.ts";
import {
  type InputAnswerer,
  isResponseTo,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  McpClientError,
  notificationMethod,
} from "./json-rpc.ts";
import { routingHeaders } from "./modern-request.ts";
import { classifyFetchError, type OutboundFetch } from "./outbound-fetch.ts";
import { readSseEvents } from "./sse-events.ts";

export interface TransportOptions {
  url: URL;
  headers: Readonly<Record<string, string>>;
  fetch: OutboundFetch;
  signal: AbortSignal;
  timeout: AbortSignal;
  /** Server notifications seen on a response stream (list_changed among them). */
  onNotification: (method: string) => void;
}

/** The HTTP statuses after which a client tries the legacy HTTP+SSE transport (spec, "Backwards compatibility"). */
export const LEGACY_FALLBACK_STATUSES: ReadonlySet<number> = new Set([400, 404, 405]);

/** Resumptions of one response stream before giving up (each waits the server's retry time). */
const MAX_RESUMPTIONS = 3;
/** The wait before resuming when the server set no retry time, and the most a server may ask for. */
const DEFAULT_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

export class StreamableHttpTransport {
  readonly kind = "streamable-http";
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  /** Modern era (2026-07-28): each request also names its method (and target) in headers. */
  modern = false;
  readonly #options: TransportOptions;

  constructor(options: TransportOptions, session?: { sessionId?: string; protocolVersion?: string }) {
    this.#options = options;
    this.sessionId = session?.sessionId;
    this.protocolVersion = session?.protocolVersion;
  }

  /**
   * Sends a request and returns the response with its id, reading a JSON body or an SSE stream;
   * `answer` answers what the server asks on that stream meanwhile.
   */
  async request(message: JsonRpcRequest, answer?: InputAnswerer): Promise<JsonRpcResponse> {
    const response = await this.#post(message);
    const issued = response.headers.get("mcp-session-id");
    if (issued !== null && message.method === "initialize") this.sessionId = issued;
    const type = response.headers.get("content-type") ?? "";
    try {
      if (type.startsWith("text/event-stream") && response.body !== null) {
        let stream: ReadableStream<Uint8Array> = response.body;
        let resume: { lastEventId?: string; retry?: number } = {};
        for (let resumed = 0; ; resumed++) {
          const response = await this.#readStream(stream, message, resume, answer);
          if (response !== undefined) return response;
          // A stream that ends after an event id may be resumed (spec 2025-11-25, "Resumability
          // and Redelivery"): wait the server's retry time, then GET with Last-Event-ID.
          if (resume.lastEventId === undefined || resumed >= MAX_RESUMPTIONS) break;
          stream = await this.#resumeStream(resume.lastEventId, resume.retry ?? DEFAULT_RETRY_MS, message.method);
        }
        throw new McpClientError("protocol", `the event stream for '${message.method}' ended without its response`);
      }
      if (type.startsWith("application/json")) {
        const body = parseJson(await boundedText(response));
        for (const item of Array.isArray(body) ? body : [body]) {
          const method = notificationMethod(item);
          if (method !== undefined) this.#options.onNotification(method);
          else if (isResponseTo(item, message.id)) return item;
        }
        throw new McpClientError("protocol", `the JSON answer to '${message.method}' is not its response`);
      }
    } catch (error) {
      if (error instanceof AnswerFailed) throw error.reason;
      throw classifyFetchError(error, this.#options.signal, this.#options.timeout, this.#options.url);
    }
    await response.body?.cancel();
    throw new McpClientError("protocol", `the answer to '${message.method}' has content type '${type}', neither JSON nor an event stream`);
  }

  /** Reads one stream until the response to `message`; records the last event id and retry time for a resumption. */
  async #readStream(
    stream: ReadableStream<Uint8Array>,
    message: JsonRpcRequest,
    resume: { lastEventId?: string; retry?: number },
    answer: InputAnswerer | undefined,
  ): Promise<JsonRpcResponse | undefined> {
    for await (const event of readSseEvents(stream)) {
      if (event.id !== undefined) resume.lastEventId = event.id;
      if (event.retry !== undefined) resume.retry = event.retry;
      // An event without data primes resumption (spec 2025-11-25): nothing to read.
      if (event.event !== "message" || event.data === "") continue;
      const parsed = parseJson(event.data);
      const method = notificationMethod(parsed);
      if (method !== undefined) this.#options.onNotification(method);
      else if (isResponseTo(parsed, message.id)) return parsed;
      else await answerServerRequest(parsed, answer, (response) => this.#respond(response));
    }
    return undefined;
  }

  /** POSTs a response to a server's request; the server acknowledges with 202. */
  async #respond(message: JsonRpcResponse): Promise<void> {
    const response = await this.#post(message);
    await response.body?.cancel();
  }

  /** After `retryMs`, a GET that resumes the stream after `lastEventId`; the operation's signal bounds both. */
  async #resumeStream(lastEventId: string, retryMs: number, method: string): Promise<ReadableStream<Uint8Array>> {
    const { url, headers, fetch, signal } = this.#options;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, Math.min(retryMs, MAX_RETRY_MS));
      signal.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
    });
    const response = await fetch(url, {
      method: "GET",
      signal,
      headers: {
        ...headers,
        accept: "text/event-stream",
        "last-event-id": lastEventId,
        ...(this.sessionId === undefined ? {} : { "mcp-session-id": this.sessionId }),
        ...(this.protocolVersion === undefined ? {} : { "mcp-protocol-version": this.protocolVersion }),
      },
    });
    if (!response.ok) throw await httpError(response, `GET (resuming ${method})`);
    if (response.body === null || !(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      await response.body?.cancel();
      throw new McpClientError("protocol", `resuming the stream of '${method}' did not answer an event stream`);
    }
    return response.body;
  }

  /** Sends a notification; the server acknowledges with 202 and no body. */
  async notify(message: JsonRpcNotification): Promise<void> {
    const response = await this.#post(message);
    await response.body?.cancel();
  }

  /** Nothing to release: each answer's stream is consumed or cancelled by the call that made it. */
  async close(): Promise<void> {}

  async #post(message: JsonRpcRequest | JsonRpcNotification | JsonRpcResponse): Promise<Response> {
    const { url, headers, fetch, signal } = this.#options;
    const response = await fetch(url, {
      method: "POST",
      signal,
      headers: {
        ...headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(this.sessionId === undefined ? {} : { "mcp-session-id": this.sessionId }),
        ...(this.protocolVersion === undefined ? {} : { "mcp-protocol-version": this.protocolVersion }),
        ...(this.modern && "method" in message ? routingHeaders(message.method, message.params) : {}),
      },
      body: JSON.stringify(message),
    });
    if (!response.ok) throw await httpError(response, `POST ${"method" in message ? message.method : `the answer to request ${String(message.id)}`}`);
    return response;
  }
}

/** Parses one message, or raises a protocol error quoting its start. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new McpClientError("protocol", `the server sent a message that is not JSON: ${text.slice(0, 100)}`);
  }
}
