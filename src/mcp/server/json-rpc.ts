/**
 * JSON-RPC 2.0 as MCP uses it: message shapes, the standard error codes, hand-rolled parsing
 * (a schema library costs more per request than this whole file; the Worker answers every MCP
 * request through it) and responses serialised straight to text.
 */

export type RequestId = string | number;

/** JSON-RPC 2.0 section 5.1 codes, plus the server-defined range MCP uses for transport errors. */
export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_INTERNAL_ERROR = -32603;
/** Implementation-defined server error (section 5.1's -32000..-32099), as the SDK uses it for HTTP-level refusals. */
export const RPC_SERVER_ERROR = -32000;
/** MCP: the resource named does not exist (or is not this key's to read). */
export const RPC_RESOURCE_NOT_FOUND = -32002;

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface RpcRequest {
  kind: "request";
  id: RequestId;
  method: string;
  params: Record<string, unknown>;
}

export interface RpcNotification {
  kind: "notification";
  method: string;
  params: Record<string, unknown>;
}

/** A client's answer to a request the server sent it (sampling, elicitation). */
export interface RpcResponse {
  kind: "response";
  id: RequestId;
  result?: unknown;
  error?: RpcError;
}

/** A message that is not valid JSON-RPC; answered with Invalid Request, with its id when it had one. */
export interface RpcInvalid {
  kind: "invalid";
  id: RequestId | null;
  reason: string;
}

export type RpcMessage = RpcRequest | RpcNotification | RpcResponse | RpcInvalid;

export type ParsedBody = { ok: true; batch: boolean; messages: RpcMessage[] } | { ok: false; error: RpcError };

const EMPTY_PARAMS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isRpcError(value: unknown): value is RpcError {
  return isObject(value) && typeof value.code === "number" && typeof value.message === "string";
}

function isId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** Classifies one decoded value as a JSON-RPC 2.0 message. */
export function classifyMessage(value: unknown): RpcMessage {
  if (!isObject(value)) return { kind: "invalid", id: null, reason: "a JSON-RPC message must be an object" };
  const id = isId(value.id) ? value.id : null;
  if (value.jsonrpc !== "2.0") return { kind: "invalid", id, reason: 'jsonrpc must be "2.0"' };
  if ("method" in value) {
    if (typeof value.method !== "string") return { kind: "invalid", id, reason: "method must be a string" };
    if (value.params !== undefined && !isObject(value.params)) return { kind: "invalid", id, reason: "params must be an object (MCP uses named parameters)" };
    const params = (value.params as Record<string, unknown> | undefined) ?? EMPTY_PARAMS;
    if (!("id" in value)) return { kind: "notification", method: value.method, params };
    // MCP (basic/index): request ids are strings or integers and MUST NOT be null.
    if (id === null) return { kind: "invalid", id: null, reason: "id must be a string or a number" };
    return { kind: "request", id, method: value.method, params };
  }
  if (id !== null && ("result" in value || "error" in value)) {
    const error = isRpcError(value.error) ? value.error : undefined;
    return { kind: "response", id, ...("result" in value ? { result: value.result } : {}), ...(error === undefined ? {} : { error }) };
  }
  return { kind: "invalid", id, reason: "not a request, notification or response" };
}

/** Parses a POST body: one message or (where the revision allows) a batch. */
export function parseBody(text: string): ParsedBody {
  let decoded: unknown;
  try {
    decoded = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      error: { code: RPC_PARSE_ERROR, message: `Parse error: the body is not valid JSON (${error instanceof Error ? error.message : String(error)}).` },
    };
  }
  if (Array.isArray(decoded)) {
    if (decoded.length === 0) return { ok: false, error: { code: RPC_INVALID_REQUEST, message: "Invalid Request: an empty batch." } };
    return { ok: true, batch: true, messages: decoded.map(classifyMessage) };
  }
  return { ok: true, batch: false, messages: [classifyMessage(decoded)] };
}

/** `{"jsonrpc":"2.0","id":…,"result":…}` around an already-serialised result. */
export function resultText(id: RequestId, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;
}

export function errorText(id: RequestId | null, error: RpcError): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error });
}

export function notificationText(method: string, params: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", method, params });
}

export function requestText(id: RequestId, method: string, params: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

/** A method's answer: the serialised `result`, or the error to answer with. */
export type Answer = { result: string } | { error: RpcError };
