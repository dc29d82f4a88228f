/**
 * A small MCP client for the Worker: initialize (with protocol version negotiation and the
 * `notifications/initialized` notification), `tools/list` with pagination, `tools/call` and
 * `ping`, over Streamable HTTP, falling back to the legacy HTTP+SSE transport when the server
 * refuses the POST with 400, 404 or 405 (spec, "Backwards compatibility").
 *
 * Why not the SDK's client: it would add its own bundle (and zod copy) to every request path of
 * the Worker, and a federating gateway needs four methods. Every operation is bounded by the
 * server's timeout and the caller's signal, and every URL passes the SSRF guard.
 *
 * After one initialize, a Streamable HTTP server's session id (if it issued one) and protocol
 * version are kept per isolate and reused, so a call is one round trip; when the server no
 * longer knows the session (404 per the spec, 400 from servers that answer that way, such as
 * after a restart) the client initializes again once and repeats the operation, which the server
 * never processed.
 *
 * First contact over Streamable HTTP probes the modern era (MCP 2026-07-28: `server/discover`,
 * no handshake, no session); a server that offers it is spoken to in it from then on, one that
 * refuses the probe gets `initialize`, and the answer is kept per server like the session.
 *
 * What a server asks during a call (elicitation, sampling) goes to the call's answerer: in the
 * 2025 era as requests on the call's response stream, in the modern era as an `input_required`
 * result, whose answers are sent back with the server's `requestState` on a retry of the call.
 */
import { discover, initialize } from "./handshake.ts";
import { type CallResume, type InputAnswerer, McpClientError, resultOf } from "./json-rpc.ts";
import { LegacySseTransport } from "./legacy-sse.ts";
import type { McpTarget, TransportKind } from "./mcp-target.ts";
import { modernCall } from "./modern-call.ts";
import { completeResult, withEnvelope } from "./modern-request.ts";
import { createOutboundFetch } from "./outbound-fetch.ts";
import { parseUrl } from "./parse-target-url.ts";
import { type Remembered, remembered, rememberKey } from "./remembered-servers.ts";
import { type RemoteCallResult, type RemoteTool, toRemoteTool } from "./remote-tool.ts";
import { LEGACY_FALLBACK_STATUSES, StreamableHttpTransport, type TransportOptions } from "./streamable-http.ts";
import { type Ask, isModern, type Transport } from "./transport.ts";

export type { CallResume, InputAnswerer, InputRequest, InputRound } from "./json-rpc.ts";
export type { McpAuth, McpTarget, TransportKind } from "./mcp-target.ts";
export { forgetSession } from "./remembered-servers.ts";
export type { RemoteCallResult, RemoteTool } from "./remote-tool.ts";

/** The reference client's page cap: a server that keeps returning cursors cannot hold us. */
const MAX_LIST_PAGES = 50;

export class McpClient {
  readonly #target: McpTarget;
  readonly #onListChanged: () => void;
  #nextId = 1;

  /** @param onListChanged called when a response stream carries `notifications/tools/list_changed`. */
  constructor(target: McpTarget, onListChanged: () => void = () => undefined) {
    this.#target = target;
    this.#onListChanged = onListChanged;
  }

  /** Every tool the server offers, following cursors up to 50 pages. */
  async listTools(signal?: AbortSignal): Promise<{ tools: RemoteTool[]; transport: TransportKind }> {
    return this.#operation(signal, async (transport) => {
      const tools: RemoteTool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const result = await this.#request(transport, "tools/list", cursor === undefined ? {} : { cursor });
        if (!Array.isArray(result.tools)) throw new McpClientError("protocol", "tools/list answered without a tools array");
        for (const tool of result.tools as unknown[]) tools.push(toRemoteTool(tool));
        cursor = typeof result.nextCursor === "string" && result.nextCursor !== "" ? result.nextCursor : undefined;
        if (cursor === undefined) break;
      }
      return { tools, transport: transport.kind };
    });
  }

  /**
   * Calls one tool; an `isError` result is returned, not thrown (it is the tool's answer).
   * `answer` answers what the server asks meanwhile; without one the server is told toolgate
   * cannot answer (2025 era), or its `input_required` ends the call (modern era). `resume`
   * continues a modern call an earlier leg began, from the server's own requestState.
   */
  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal, answer?: InputAnswerer, resume?: CallResume): Promise<RemoteCallResult> {
    return this.#operation(signal, async (transport) => {
      const result = isModern(transport)
        ? await modernCall({ name, arguments: args }, answer, resume, async (params) =>
            resultOf(await transport.request({ jsonrpc: "2.0", id: this.#nextId++, method: "tools/call", params })),
          )
        : resultOf(await transport.request({ jsonrpc: "2.0", id: this.#nextId++, method: "tools/call", params: { name, arguments: args } }, answer));
      if (!Array.isArray(result.content)) throw new McpClientError("protocol", "tools/call answered without a content array");
      return {
        content: (result.content as unknown[]).filter((block): block is Record<string, unknown> => typeof block === "object" && block !== null),
        ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
        isError: result.isError === true,
      };
    });
  }

  /** Any other request (prompts, resources): its `result`, under the same session, timeout and guard. */
  async request(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
    return this.#operation(signal, (transport) => this.#request(transport, method, params));
  }

  /** Proves the server answers MCP: a ping over a (possibly new) session. */
  async ping(signal?: AbortSignal): Promise<void> {
    // The modern era removed ping; server/discover is its cheapest request.
    await this.#operation(signal, (transport) => this.#request(transport, isModern(transport) ? "server/discover" : "ping", {}));
  }

  /**
   * Runs one operation with the target's token, if it has one; a 401 renews the token once and
   * repeats the operation, which the server refused before doing anything.
   */
  async #operation<T>(signal: AbortSignal | undefined, run: (transport: Transport) => Promise<T>): Promise<T> {
    const { auth } = this.#target;
    if (auth === undefined) return this.#attempt(signal, this.#target.headers, run);
    const bound = signal ?? AbortSignal.timeout(this.#target.timeoutMs);
    const withToken = async () => {
      const authorization = await auth.authorization(bound);
      return authorization === undefined ? this.#target.headers : { ...this.#target.headers, authorization };
    };
    try {
      return await this.#attempt(signal, await withToken(), run);
    } catch (error) {
      if (!(error instanceof McpClientError) || error.kind !== "unauthorized" || !(await auth.renew(error, bound))) throw error;
      return this.#attempt(signal, await withToken(), run);
    }
  }

  async #attempt<T>(signal: AbortSignal | undefined, headers: Readonly<Record<string, string>>, run: (transport: Transport) => Promise<T>): Promise<T> {
    const timeout = AbortSignal.timeout(this.#target.timeoutMs);
    const bounded = signal === undefined ? timeout : AbortSignal.any([timeout, signal]);
    const key = rememberKey(this.#target);
    const known = remembered.get(key) ?? {};
    // Legacy SSE delivers everything on the session's one stream, including what a server sends
    // right after initialization (a list_changed for tools it registers then), which describes
    // the state this operation's first answer already reflects: only later ones are news. On
    // Streamable HTTP a notification on a response stream belongs to that request: always news.
    let settled = known.kind !== "sse";
    const options: TransportOptions = {
      url: parseUrl(this.#target),
      headers,
      fetch: createOutboundFetch(this.#target.allow, timeout),
      signal: bounded,
      timeout,
      onNotification: (method) => {
        if (method === "notifications/tools/list_changed" && settled) this.#onListChanged();
      },
    };
    const markSettled = async <R>(promise: Promise<R>): Promise<R> => {
      const value = await promise;
      settled = true;
      return value;
    };
    if (known.kind === "sse") return this.#legacy(options, (transport) => markSettled(run(transport)));

    const reuse = known.initialized === true;
    let initializing = false;
    try {
      const transport = new StreamableHttpTransport(options, known);
      transport.modern = known.modern === true;
      if (!reuse) {
        initializing = true;
        if (!(await discover(transport, this.#ask(transport)))) await initialize(transport, this.#ask(transport));
        initializing = false;
      }
      remembered.set(key, { kind: "streamable-http", initialized: true, ...sessionOf(transport) });
      return await markSettled(run(transport));
    } catch (error) {
      if (!(error instanceof McpClientError) || error.kind !== "http" || error.code === undefined) throw error;
      // A modern server has no session to lose: its 404 or 400 is the answer.
      if (reuse && known.modern !== true && (error.code === 404 || error.code === 400)) {
        // The server forgot the session (restart, expiry): start a new one, once.
        remembered.delete(key);
        const transport = new StreamableHttpTransport(options);
        await initialize(transport, this.#ask(transport));
        remembered.set(key, { kind: "streamable-http", initialized: true, ...sessionOf(transport) });
        return await markSettled(run(transport));
      }
      // Only a refused initialize says "not a Streamable HTTP server"; a later 4xx is an answer.
      if (initializing && LEGACY_FALLBACK_STATUSES.has(error.code)) {
        settled = false;
        const result = await this.#legacy(options, (transport) => markSettled(run(transport)));
        remembered.set(key, { kind: "sse" });
        return result;
      }
      throw error;
    }
  }

  async #legacy<T>(options: TransportOptions, run: (transport: Transport) => Promise<T>): Promise<T> {
    const transport = await LegacySseTransport.open(options);
    try {
      await initialize(transport, this.#ask(transport));
      return await run(transport);
    } finally {
      await transport.close();
    }
  }

  /** #request bound to one transport, for the handshake (handshake.ts). */
  #ask(transport: Transport): Ask {
    return (method, params) => this.#request(transport, method, params);
  }

  async #request(transport: Transport, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    if (!isModern(transport)) return resultOf(await transport.request({ jsonrpc: "2.0", id, method, params }));
    return completeResult(method, resultOf(await transport.request({ jsonrpc: "2.0", id, method, params: withEnvelope(params) })));
  }
}

function sessionOf(transport: StreamableHttpTransport): Remembered {
  return {
    ...(transport.modern ? { modern: true } : {}),
    ...(transport.sessionId === undefined ? {} : { sessionId: transport.sessionId }),
    ...(transport.protocolVersion === undefined ? {} : { protocolVersion: transport.protocolVersion }),
  };
}
