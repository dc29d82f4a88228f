/**
 * The modern era's request envelope (MCP 2026-07-28, basic/index `_meta` and Streamable HTTP
 * "Request Metadata"): which requests are modern, and the checks a modern request passes before
 * any method runs. A request is modern when its body's `_meta` names a protocol version, or
 * when its MCP-Protocol-Version header names a modern one; the body decides, as the v2 SDK's
 * server does, so a proxy that strips a header cannot change the era. Everything else is a 2025
 * lane, answered as before.
 *
 * The checks, in the revision's order: the envelope's shape; the MCP-Protocol-Version header
 * present and equal to the body's version (HeaderMismatch, -32020); a version this server speaks
 * (UnsupportedProtocolVersion, -32022); Mcp-Method present and equal to the method; Mcp-Name
 * present and equal to `params.name` / `params.uri` where the revision requires it, after
 * decoding its `=?base64?…?=` form. Each refusal is HTTP 400 with the request's id.
 */

import { fromBase64url } from "../../crypto/encoding.ts";
import { LOG_LEVELS, type LogLevel } from "../../registry/client-channel.ts";
import { type RequestId, RPC_INVALID_PARAMS, RPC_INVALID_REQUEST, type RpcError, type RpcMessage } from "./json-rpc.ts";
import { isModernEraVersion, isSupportedModernVersion, MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from "./protocol-versions.ts";

export const PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion";
export const CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities";
export const LOG_LEVEL_META_KEY = "io.modelcontextprotocol/logLevel";
export const SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo";

/** 2026-07-28 basic/index "Error Codes": the range the specification reserves for itself. */
export const RPC_HEADER_MISMATCH = -32020;
export const RPC_UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** Which body field `Mcp-Name` mirrors, per method (Streamable HTTP, "Standard Request Headers"). */
export const NAME_SOURCE: Readonly<Record<string, "name" | "uri">> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" };

/** What a modern request declared about itself, read once and carried in the McpContext. */
export interface ModernEnvelope {
  protocolVersion: string;
  /** Declared per request; never inferred from an earlier one (the revision's rule). */
  clientCapabilities: Readonly<Record<string, unknown>>;
  /** Log notifications only for a request that asked, from this level up; none otherwise. */
  logLevel: LogLevel | undefined;
}

/**
 * The request's headers as the checks read them (Mcp-Method, Mcp-Name): only a modern request
 * reads them, so the 2025 lanes pay for neither. Header names are case-insensitive, values are not.
 */
export type EnvelopeHeaders = Pick<Headers, "get">;

export type EraOf = { era: "legacy" } | { era: "modern"; envelope: ModernEnvelope } | { era: "refused"; status: 400; id: RequestId | null; error: RpcError };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const LEGACY: EraOf = Object.freeze({ era: "legacy" });

/**
 * Classifies one POST body and, when it is modern, checks it. `batch`: the body was an array,
 * which the modern era does not have.
 */
export function eraOf(messages: readonly RpcMessage[], batch: boolean, protocolVersion: string | undefined, headers: EnvelopeHeaders): EraOf {
  const headerModern = protocolVersion !== undefined && isModernEraVersion(protocolVersion);
  const claims = messages.some(claimsModern);
  if (!claims && !headerModern) return LEGACY;
  const [message] = messages;
  const id = message !== undefined && message.kind !== "notification" ? message.id : null;
  if (batch || message === undefined)
    return refuse(null, RPC_INVALID_REQUEST, "Invalid Request: a request of protocol revision 2026-07-28 or later cannot be part of a batch.");
  if (message.kind === "response" || message.kind === "invalid") {
    return refuse(
      id,
      RPC_INVALID_REQUEST,
      "Invalid Request: the modern era has no client-sent responses; answer an input request by retrying the original request with inputResponses.",
    );
  }
  const meta = isObject(message.params._meta) ? message.params._meta : undefined;
  const bodyVersion = meta?.[PROTOCOL_VERSION_META_KEY];
  if (meta === undefined || !(PROTOCOL_VERSION_META_KEY in meta)) {
    return refuse(
      id,
      RPC_INVALID_PARAMS,
      `Invalid params: the MCP-Protocol-Version header names ${protocolVersion ?? ""}, a modern revision, but params._meta lacks ${PROTOCOL_VERSION_META_KEY} and ${CLIENT_CAPABILITIES_META_KEY}.`,
    );
  }
  if (typeof bodyVersion !== "string")
    return refuse(id, RPC_INVALID_PARAMS, `Invalid params: _meta.${PROTOCOL_VERSION_META_KEY} must be a protocol version string.`);
  if (protocolVersion === undefined)
    return mismatch(id, `the body names protocol version ${bodyVersion} but the required MCP-Protocol-Version header is absent`);
  if (protocolVersion !== bodyVersion) {
    return mismatch(id, `the body names protocol version ${bodyVersion} but the MCP-Protocol-Version header names ${protocolVersion}`);
  }
  if (!isSupportedModernVersion(bodyVersion)) {
    return {
      era: "refused",
      status: 400,
      id,
      error: {
        code: RPC_UNSUPPORTED_PROTOCOL_VERSION,
        message: `Unsupported protocol version: ${bodyVersion}. This server speaks ${MODERN_PROTOCOL_VERSIONS.join(", ")} per request, and ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")} after initialize.`,
        data: { supported: [...MODERN_PROTOCOL_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS], requested: bodyVersion },
      },
    };
  }
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY];
  if (message.kind === "request" && !isObject(capabilities)) {
    return refuse(id, RPC_INVALID_PARAMS, `Invalid params: _meta.${CLIENT_CAPABILITIES_META_KEY} must be an object (send {} when the client offers nothing).`);
  }
  if (message.kind === "request") {
    const headerRefusal = checkRoutingHeaders(message.method, message.params, headers);
    if (headerRefusal !== undefined) return mismatch(id, headerRefusal);
  }
  const level = meta[LOG_LEVEL_META_KEY];
  return {
    era: "modern",
    envelope: {
      protocolVersion: bodyVersion,
      clientCapabilities: isObject(capabilities) ? capabilities : {},
      logLevel: typeof level === "string" && (LOG_LEVELS as readonly string[]).includes(level) ? (level as LogLevel) : undefined,
    },
  };
}

/** Whether a message's own `_meta` names a protocol version (a function of the module, not a closure per request). */
function claimsModern(message: RpcMessage): boolean {
  if (message.kind !== "request" && message.kind !== "notification") return false;
  const meta = message.params._meta;
  return isObject(meta) && PROTOCOL_VERSION_META_KEY in meta;
}

/** Why Mcp-Method or Mcp-Name disagrees with the body, or undefined when they agree. */
function checkRoutingHeaders(method: string, params: Record<string, unknown>, headers: EnvelopeHeaders): string | undefined {
  const methodHeader = headers.get("mcp-method");
  if (methodHeader === null) return `the body names method ${method} but the required Mcp-Method header is absent`;
  if (methodHeader !== method) return `the body names method ${method} but the Mcp-Method header names ${methodHeader}`;
  const field = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method] : undefined;
  if (field === undefined) return undefined;
  const body = params[field];
  if (typeof body !== "string") return undefined;
  const nameHeader = headers.get("mcp-name");
  if (nameHeader === null) return `the body carries params.${field} "${body}" but the required Mcp-Name header is absent`;
  const decoded = decodeHeaderValue(nameHeader);
  if (decoded === undefined) return "the Mcp-Name header carries an invalid =?base64?…?= value";
  if (decoded !== body) return `Mcp-Name header value '${decoded}' does not match body value '${body}'`;
  return undefined;
}

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** A header value as sent, or its Base64 sentinel form decoded (UTF-8); undefined when the sentinel is malformed. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!value.startsWith("=?base64?")) return value;
  const match = SENTINEL.exec(value);
  if (match === null) return undefined;
  try {
    return utf8.decode(fromBase64url(match[1] ?? ""));
  } catch {
    return undefined;
  }
}

function mismatch(id: RequestId | null, detail: string): EraOf {
  return refuse(id, RPC_HEADER_MISMATCH, `Header mismatch: ${detail}.`);
}

function refuse(id: RequestId | null, code: number, message: string): EraOf {
  return { era: "refused", status: 400, id, error: { code, message } };
}
