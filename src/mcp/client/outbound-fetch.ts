/**
 * The one way the MCP client reaches the network: every URL (and redirect) through the SSRF guard, and
 * every failure of fetch itself classified as timeout, abort or network, so the transports only
 * deal with HTTP answers.
 */
import { fetchOutbound, OutboundUrlError } from "../../net/outbound-url.ts";
import { McpClientError } from "./json-rpc.ts";

export type OutboundFetch = (url: URL, init: RequestInit & { signal: AbortSignal }) => Promise<Response>;

/**
 * A fetch that refuses URLs the SSRF guard refuses (private, loopback, link-local targets
 * unless `allow` lists them) and names what went wrong when no answer came.
 *
 * @param timeout the signal of the server's timeout, to tell "the server was too slow" from
 *   "the call's own deadline or the client stopped it".
 */
export function createOutboundFetch(allow: readonly string[], timeout: AbortSignal): OutboundFetch {
  return async function outboundFetch(url, init) {
    try {
      // fetchOutbound checks the URL and every redirect hop, so a 3xx cannot lead past the guard.
      return await fetchOutbound(url.href, init, allow);
    } catch (error) {
      if (error instanceof OutboundUrlError) throw new McpClientError("refused", `refused to connect to ${url.host}: ${error.message}`);
      throw classifyFetchError(error, init.signal, timeout, url);
    }
  };
}

/** Turns what fetch (or a body read) rejected with into an McpClientError. */
export function classifyFetchError(error: unknown, signal: AbortSignal, timeout: AbortSignal, url: URL): McpClientError {
  if (error instanceof McpClientError) return error;
  if (timeout.aborted) return new McpClientError("timeout", `no answer from ${url.host} within the server's timeout`);
  if (signal.aborted) return new McpClientError("aborted", `the request to ${url.host} was stopped (deadline or client gone)`);
  return new McpClientError("network", `${url.host}: ${error instanceof Error ? error.message : String(error)}`);
}
