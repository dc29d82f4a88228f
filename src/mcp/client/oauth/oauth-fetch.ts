/**
 * The fetch the OAuth steps use: every URL (metadata, registration, token endpoints, and each
 * redirect hop) through the SSRF guard, like the MCP client's own requests, and bounded in time.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { fetchOutbound } from "../../../net/outbound-url.ts";

/** An authorization server that has not answered in this long is treated as down. */
const OAUTH_REQUEST_TIMEOUT_MS = 15_000;

/** A FetchLike for the SDK's auth helpers that refuses what OUTBOUND_ALLOW does not permit. */
export function createOAuthFetch(allow: readonly string[], signal?: AbortSignal): FetchLike {
  return function oauthFetch(url, init) {
    const timeout = AbortSignal.timeout(OAUTH_REQUEST_TIMEOUT_MS);
    return fetchOutbound(String(url), { ...init, signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]) }, allow);
  };
}
