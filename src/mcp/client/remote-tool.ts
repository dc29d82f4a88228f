/**
 * A remote server's tools and call results as the client hands them on, and the check that a
 * `tools/list` entry is one: a server's answer is outside input, so a malformed tool is a
 * protocol error naming what is wrong, not a crash further on.
 */
import { McpClientError } from "./json-rpc.ts";

/** A tool as `tools/list` describes it. */
export interface RemoteTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** A `tools/call` result (content blocks, optional structured content, isError). */
export interface RemoteCallResult {
  content: readonly Record<string, unknown>[];
  structuredContent?: unknown;
  isError: boolean;
}

/** One `tools/list` entry, checked; a missing or non-object `inputSchema` becomes an empty object schema. */
export function toRemoteTool(value: unknown): RemoteTool {
  if (typeof value !== "object" || value === null) throw new McpClientError("protocol", "tools/list returned a tool that is not an object");
  const tool = value as { name?: unknown; description?: unknown; inputSchema?: unknown };
  if (typeof tool.name !== "string" || tool.name === "") throw new McpClientError("protocol", "tools/list returned a tool without a name");
  const inputSchema =
    typeof tool.inputSchema === "object" && tool.inputSchema !== null && !Array.isArray(tool.inputSchema)
      ? (tool.inputSchema as Record<string, unknown>)
      : { type: "object", properties: {} };
  return { name: tool.name, ...(typeof tool.description === "string" ? { description: tool.description } : {}), inputSchema };
}
