/**
 * The MCP protocol revisions this server speaks: those of the official TypeScript SDK we test
 * against (@modelcontextprotocol/sdk 1.32: LATEST_PROTOCOL_VERSION and
 * SUPPORTED_PROTOCOL_VERSIONS). Kept as constants rather than imported, because the SDK does not
 * belong in the Worker bundle; test/scripts/mcp-sdk-client.test.ts fails when the SDK moves on.
 */

/**
 * The modern era (2026-07-28 on): stateless, no `initialize`; each request names its revision in
 * `_meta` (modern-envelope.ts). The v2 SDK (@modelcontextprotocol/client 2.4) negotiates it
 * through `server/discover`. Revision ids are ISO dates, so a later one sorts after.
 */
export const MODERN_PROTOCOL_VERSIONS = ["2026-07-28"] as const;

const FIRST_MODERN_PROTOCOL_VERSION = MODERN_PROTOCOL_VERSIONS[0];

/** Whether `version` belongs to the modern era (whether or not this server speaks it). */
export function isModernEraVersion(version: string): boolean {
  return version >= FIRST_MODERN_PROTOCOL_VERSION;
}

const modern: ReadonlySet<string> = new Set(MODERN_PROTOCOL_VERSIONS);

export function isSupportedModernVersion(version: string): boolean {
  return modern.has(version);
}

/** The 2025 lanes' revisions, negotiated by `initialize`. Newest first, as the SDK lists them. */
export const SUPPORTED_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"] as const;

export const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0];

/**
 * The revision a request without `MCP-Protocol-Version` is read under (Streamable HTTP,
 * 2025-06-18: "the server SHOULD assume protocol version 2025-03-26").
 */
export const DEFAULT_NEGOTIATED_PROTOCOL_VERSION = "2025-03-26";

const supported: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);

export function isSupportedProtocolVersion(version: string): boolean {
  return supported.has(version);
}

/** Lifecycle: answer with the client's version when we support it, else with our latest. */
export function negotiateProtocolVersion(requested: unknown): string {
  return typeof requested === "string" && supported.has(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/** JSON-RPC batches were part of 2025-03-26 and older only (2025-06-18 removed them). */
export function allowsBatches(version: string): boolean {
  return version <= "2025-03-26";
}
