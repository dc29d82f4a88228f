/**
 * The JSON-RPC 2.0 messages MCP exchanges, and the one error type the client raises. Only what
 * a federating client needs: requests out, responses and notifications in.
 */

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: number;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: "2.0"; id: number | string | null; result: Record<string, unknown> }
  | { jsonrpc: "2.0"; id: number | string | null; error: JsonRpcErrorObject };

/**
 * Why a remote exchange failed, in the terms the federation layer maps to the envelope:
 * `timeout` (the server's timeout passed), `aborted` (the call's own deadline or client), `network`
 * (no HTTP answer), `http` (an HTTP status that is not an MCP answer), `protocol` (an answer
 * that is not valid MCP), `rpc` (a JSON-RPC error object), `refused` (the SSRF guard),
 * `unauthorized` (401, or 403 `insufficient_scope`: the server wants a token, or another one).
 */
export type McpErrorKind = "timeout" | "aborted" | "network" | "http" | "protocol" | "rpc" | "refused" | "unauthorized";

/** What a 401 or 403 said in its `WWW-Authenticate: Bearer` header (MCP authorization, RFC 6750). */
export interface AuthChallenge {
  resourceMetadataUrl?: string;
  scope?: string;
  error?: string;
}

export class McpClientError extends Error {
  override readonly name = "McpClientError";
  readonly kind: McpErrorKind;
  /** The HTTP status for `http`, the JSON-RPC code for `rpc`. */
  readonly code: number | undefined;
  /** For `unauthorized`: the server's challenge, where sign-in starts. */
  readonly challenge: AuthChallenge | undefined;
  /** For `rpc`: the error object's `data` (a URL elicitation's links, say: remote-failure.ts). */
  readonly data: unknown;
  constructor(kind: McpErrorKind, message: string, code?: number, challenge?: AuthChallenge, data?: unknown) {
    super(message);
    this.kind = kind;
    this.code = code;
    this.challenge = challenge;
    this.data = data;
  }
}

/** Whether a parsed message is the response to request `id`. */
export function isResponseTo(message: unknown, id: number): message is JsonRpcResponse {
  if (typeof message !== "object" || message === null) return false;
  const m = message as { id?: unknown; result?: unknown; error?: unknown };
  return m.id === id && (m.result !== undefined || m.error !== undefined);
}

/** The method of a server-to-client notification, or undefined for anything else. */
export function notificationMethod(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const m = message as { id?: unknown; method?: unknown };
  return m.id === undefined && typeof m.method === "string" ? m.method : undefined;
}

/** A request the server sends its client mid-response (2025 era: on the response's SSE stream), or undefined. */
export function serverRequest(message: unknown): { id: number | string; method: string; params: Record<string, unknown> } | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const m = message as { id?: unknown; method?: unknown; params?: unknown };
  if ((typeof m.id !== "string" && typeof m.id !== "number") || typeof m.method !== "string") return undefined;
  const params = typeof m.params === "object" && m.params !== null ? (m.params as Record<string, unknown>) : {};
  return { id: m.id, method: m.method, params };
}

/**
 * Answers what an upstream asks its client during a call (elicitation, sampling): each entry of
 * `requests` (keyed as the upstream keyed them) answered by the downstream client, keyed the same.
 * It throws when the downstream cannot or did not answer; the call then ends with that failure.
 */
export type InputAnswerer = (requests: Readonly<Record<string, InputRequest>>) => Promise<Record<string, unknown>>;

/** One round of a modern server's questions: its `inputRequests`, and the `requestState` to send back with the answers. */
export interface InputRound {
  requests: Record<string, InputRequest>;
  requestState: string | undefined;
}

/**
 * Resuming a modern call across legs (a downstream that answers by retrying): `from` are the
 * rounds of earlier legs, the last one's answers to be sent with its `requestState`; `onRounds`
 * hears every round so far, to carry them to the next leg.
 */
export interface CallResume {
  from: readonly InputRound[];
  onRounds: (rounds: readonly InputRound[]) => void;
}

/** One question an upstream asks (a server-to-client request's method and params). */
export interface InputRequest {
  method: string;
  params: Record<string, unknown>;
}

/** The result of a response, or the McpClientError its error object describes. */
export function resultOf(response: JsonRpcResponse): Record<string, unknown> {
  if ("error" in response) {
    const { code, message, data } = response.error;
    throw new McpClientError("rpc", `the server answered JSON-RPC error ${code}: ${String(message)}`, code, undefined, data);
  }
  if (typeof response.result !== "object" || response.result === null) {
    throw new McpClientError("protocol", "the server's response has no result object");
  }
  return response.result;
}
