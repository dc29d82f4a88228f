/** A configured server's URL, parsed once where the client starts a transport. */
import { McpClientError } from "./json-rpc.ts";
import type { McpTarget } from "./mcp-target.ts";

/** The server's URL; a malformed one is the client's `refused` error, naming the server, never a TypeError. */
export function parseUrl(target: McpTarget): URL {
  try {
    return new URL(target.url);
  } catch {
    throw new McpClientError("refused", `MCP server '${target.name}' has an invalid URL`);
  }
}
