/**
 * First contact with a server: the modern era's `server/discover` probe, and the 2025 era's
 * `initialize` (spec, "Lifecycle"). Apart from mcp-client.ts, which decides when each runs
 * (first contact, a forgotten session, the legacy fallback) and numbers their requests (`ask`).
 */
import { isSupportedProtocolVersion, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "../server/protocol-versions.ts";
import { McpClientError } from "./json-rpc.ts";
import { ANSWERING_CAPABILITIES, MODERN_VERSION, offersModern } from "./modern-request.ts";
import { StreamableHttpTransport } from "./streamable-http.ts";
import type { Ask, Transport } from "./transport.ts";

/**
 * Probes the modern era with `server/discover`; true when the server offers it (the transport
 * then speaks it). A 2025 server refuses the method, as a JSON-RPC error or an HTTP 400, 404 or
 * 405 (servers that want initialize first); any such refusal means "ask with initialize".
 */
export async function discover(transport: StreamableHttpTransport, ask: Ask): Promise<boolean> {
  transport.modern = true;
  transport.protocolVersion = MODERN_VERSION;
  try {
    if (offersModern(await ask("server/discover", {}))) return true;
  } catch (error) {
    if (!(error instanceof McpClientError) || !["rpc", "http", "protocol"].includes(error.kind)) throw error;
  }
  transport.modern = false;
  transport.protocolVersion = undefined;
  return false;
}

/** initialize, version check, notifications/initialized (spec, "Lifecycle"). */
export async function initialize(transport: Transport, ask: Ask): Promise<void> {
  const result = await ask("initialize", {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    // Declared for every call of the shared session: a call whose client cannot answer tells
    // the server so when it asks (streamable-http.ts), which beats a server that never offers
    // its asking tools (server-everything registers them only for clients that declared these).
    capabilities: ANSWERING_CAPABILITIES,
    clientInfo: { name: "toolgate", version: "0.1.0" },
  });
  const version = result.protocolVersion;
  // The revisions our server speaks are those our client speaks: the SDK's list.
  if (typeof version !== "string" || !isSupportedProtocolVersion(version)) {
    throw new McpClientError(
      "protocol",
      `the server speaks MCP protocol version ${JSON.stringify(version)}, which toolgate does not support (${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
    );
  }
  if (transport instanceof StreamableHttpTransport) transport.protocolVersion = version;
  await transport.notify({ jsonrpc: "2.0", method: "notifications/initialized" });
}
