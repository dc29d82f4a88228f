/**
 * What mcp-client.ts asks of a transport, Streamable HTTP or legacy HTTP+SSE alike; kept apart
 * so the client's helpers (handshake.ts) can take one without importing the client.
 */
import type { InputAnswerer, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "./json-rpc.ts";
import type { TransportKind } from "./mcp-target.ts";
import { StreamableHttpTransport } from "./streamable-http.ts";

export interface Transport {
  readonly kind: TransportKind;
  request(message: JsonRpcRequest, answer?: InputAnswerer): Promise<JsonRpcResponse>;
  notify(message: JsonRpcNotification): Promise<void>;
  close(): Promise<void>;
}

/** Only Streamable HTTP can speak the modern era (MCP 2026-07-28); legacy SSE never does. */
export const isModern = (transport: Transport): boolean => transport instanceof StreamableHttpTransport && transport.modern;

/** Sends one request on a transport the caller chose and returns its `result` (mcp-client.ts numbers it). */
export type Ask = (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;
