/**
 * Speaking MCP's modern era (2026-07-28) to an upstream: the envelope every request carries in
 * `params._meta` (the protocol version and the client's capabilities, declared per request), and
 * the routing headers the revision requires beside it (Mcp-Method, and Mcp-Name mirroring
 * `params.name` / `params.uri`). toolgate declares the capabilities it can forward for a call
 * (elicitation and sampling, where the call has a client to ask), none otherwise; an
 * `input_required` answer it cannot forward is refused with a sentence.
 */
import { CLIENT_CAPABILITIES_META_KEY, NAME_SOURCE, PROTOCOL_VERSION_META_KEY } from "../server/modern-envelope.ts";
import { MODERN_PROTOCOL_VERSIONS } from "../server/protocol-versions.ts";
import { McpClientError } from "./json-rpc.ts";

/** The modern revision toolgate speaks upstream. */
export const MODERN_VERSION: string = MODERN_PROTOCOL_VERSIONS[0];

/**
 * What toolgate declares it can answer when it has a client to forward questions to: elicitation
 * in both modes (2025-11-25 shape) and sampling. Declared whatever the calling client declared,
 * for one rule in every era: a 2025 upstream's session is shared by every client's calls and
 * declared once, at initialize. A question the calling client cannot take ends the call with
 * toolgate's own structured error naming the server and the method (forward-questions.ts), which
 * beats a server that hides its asking tools or fails them with its own words.
 */
export const ANSWERING_CAPABILITIES: Readonly<Record<string, unknown>> = { elicitation: { form: {}, url: {} }, sampling: {} };

/** `params` with the modern envelope added to its `_meta` (a caller's own `_meta` keys kept). */
export function withEnvelope(params: Record<string, unknown>, capabilities: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  const meta = typeof params._meta === "object" && params._meta !== null ? (params._meta as Record<string, unknown>) : {};
  return { ...params, _meta: { ...meta, [PROTOCOL_VERSION_META_KEY]: MODERN_VERSION, [CLIENT_CAPABILITIES_META_KEY]: capabilities } };
}

/** The routing headers of one modern request. */
export function routingHeaders(method: string, params: Record<string, unknown> | undefined): Record<string, string> {
  const source = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method] : undefined;
  const name = source === undefined ? undefined : params?.[source];
  return { "mcp-method": method, ...(typeof name === "string" ? { "mcp-name": headerValue(name) } : {}) };
}

/** A header carries printable ASCII as it is; anything else in the revision's `=?base64?…?=` form. */
function headerValue(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value) && !value.startsWith("=?")) return value;
  let binary = "";
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

/** Whether a server/discover result offers the revision toolgate speaks. */
export function offersModern(result: Record<string, unknown>): boolean {
  return Array.isArray(result.supportedVersions) && result.supportedVersions.includes(MODERN_VERSION);
}

/** A modern result, or the refusal of one toolgate cannot complete (an upstream's question). */
export function completeResult(method: string, result: Record<string, unknown>): Record<string, unknown> {
  if (result.resultType === "input_required") {
    throw new McpClientError(
      "protocol",
      `the server needs input from the client to answer '${method}' (input_required), which toolgate forwards only during a tool call`,
    );
  }
  return result;
}
