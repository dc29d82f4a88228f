/**
 * The legacy HTTP+SSE transport (MCP 2024-11-05), the fallback for servers that refuse the
 * Streamable HTTP POST: a GET opens an event stream whose first `endpoint` event names where to
 * POST messages; answers come back on that stream, not in the POST's response.
 *
 * The stream is held only for one operation (initialize, the request, close): a Worker cannot
 * keep a connection open between requests, so every operation is its own short session.
 *
 * What the server asks during a request (elicitation, sampling) also arrives on that stream, as a
 * request of its own: it is answered through the call's answerer like on Streamable HTTP
 * (answer-server.ts), and the answer POSTed to the endpoint like any other message.
 */
import { AnswerFailed, answerServerRequest } from "./answer-server.ts";
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
import { classifyFetchError } from "./outbound-fetch.ts";
import { readSseEvents, type SseEvent } from "./sse-events.ts";
import { parseJson, type TransportOptions } from "./streamable-http.ts";

export class LegacySseTransport {
  readonly kind = "sse";
  readonly #options: TransportOptions;
  readonly #events: AsyncGenerator<SseEvent>;
  readonly #endpoint: URL;

  private constructor(options: TransportOptions, events: AsyncGenerator<SseEvent>, endpoint: URL) {
    this.#options = options;
    this.#events = events;
    this.#endpoint = endpoint;
  }

  /** Opens the event stream and waits for its `endpoint` event. */
  static async open(options: TransportOptions): Promise<LegacySseTransport> {
    const { url, headers, fetch, signal } = options;
    const response = await fetch(url, { method: "GET", signal, headers: { ...headers, accept: "text/event-stream" } });
    if (!response.ok) throw await httpError(response, "GET (legacy SSE)");
    const type = response.headers.get("content-type") ?? "";
    if (!type.startsWith("text/event-stream") || response.body === null) {
      await response.body?.cancel();
      throw new McpClientError("protocol", `GET (legacy SSE) answered '${type}', not an event stream: the URL is not an MCP endpoint`);
    }
    const events = readSseEvents(response.body);
    try {
      for await (const event of iterate(events)) {
        if (event.event !== "endpoint") continue;
        const endpoint = new URL(event.data, url);
        // The endpoint comes from the remote server: it may not send our messages elsewhere.
        if (endpoint.origin !== url.origin) {
          throw new McpClientError("protocol", `the server's endpoint ${endpoint.origin} is not on its own origin ${url.origin}`);
        }
        return new LegacySseTransport(options, events, endpoint);
      }
    } catch (error) {
      await events.return(undefined);
      throw classifyFetchError(error, signal, options.timeout, url);
    }
    throw new McpClientError("protocol", "the event stream ended before its 'endpoint' event");
  }

  /**
   * POSTs a request to the endpoint and reads its response from the event stream; `answer`
   * answers what the server asks on that stream meanwhile.
   */
  async request(message: JsonRpcRequest, answer?: InputAnswerer): Promise<JsonRpcResponse> {
    await this.#post(message);
    try {
      for await (const event of iterate(this.#events)) {
        // An event without data primes resumption (spec 2025-11-25): nothing to read.
        if (event.event !== "message" || event.data === "") continue;
        const parsed = parseJson(event.data);
        const method = notificationMethod(parsed);
        if (method !== undefined) this.#options.onNotification(method);
        else if (isResponseTo(parsed, message.id)) return parsed;
        else await answerServerRequest(parsed, answer, (response) => this.#post(response));
      }
    } catch (error) {
      if (error instanceof AnswerFailed) throw error.reason;
      throw classifyFetchError(error, this.#options.signal, this.#options.timeout, this.#options.url);
    }
    throw new McpClientError("protocol", `the event stream ended before the response to '${message.method}'`);
  }

  async notify(message: JsonRpcNotification): Promise<void> {
    await this.#post(message);
  }

  /** Ends the session: closing the stream is how this transport says goodbye. */
  async close(): Promise<void> {
    await this.#events.return(undefined);
  }

  async #post(message: JsonRpcRequest | JsonRpcNotification | JsonRpcResponse): Promise<void> {
    const { headers, fetch, signal } = this.#options;
    const response = await fetch(this.#endpoint, {
      method: "POST",
      signal,
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify(message),
    });
    if (!response.ok)
      throw await httpError(response, `POST ${"method" in message ? message.method : `the answer to request ${String(message.id)}`} (legacy SSE)`);
    await response.body?.cancel();
  }
}

/**
 * Iterates a generator without closing it when the loop is left early, so the next request can
 * go on reading the same stream.
 */
async function* iterate(events: AsyncGenerator<SseEvent>): AsyncGenerator<SseEvent> {
  for (;;) {
    const next = await events.next();
    if (next.done === true) return;
    yield next.value;
  }
}
