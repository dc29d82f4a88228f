/**
 * Stored oversized results as MCP resources. A result too large to return inline is kept in KV
 * under a random handle (results/limit-result.ts); here it is also the resource
 * `toolgate://results/{handle}`, readable with `resources/read` by a key that may use the tool
 * that produced it (and, on /mcp/{toolset}, only for that toolset's tools). Results are not
 * listed: handles are not indexed by key, and knowing a handle is what grants reading it, as for
 * the `read_result` tool.
 */
import type { StoredResult } from "../../results/limit-result.ts";
import { storedResultKey } from "../../storage/keys.ts";
import { RPC_INVALID_PARAMS, RPC_RESOURCE_NOT_FOUND, type RpcError } from "./json-rpc.ts";

const URI_PREFIX = "toolgate://results/";
const HANDLE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The resource URI of a stored result. */
export const storedResultUri = (handle: string): string => `${URI_PREFIX}${handle}`;

/** `resources/templates/list`'s one template. */
export const STORED_RESULT_TEMPLATE = {
  uriTemplate: `${URI_PREFIX}{handle}`,
  name: "stored-result",
  title: "Stored tool result",
  description: "The full text of a tool result too large to return inline; the handle is in the truncated result (and its resource_link).",
  mimeType: "text/plain",
};

export interface ResourceReader {
  kv: KVNamespace;
  /** Whether the caller may read what this tool produced. */
  mayRead(tool: string): boolean;
}

/** `resources/read` of a stored result: its contents, or the JSON-RPC error to answer. */
export async function readStoredResult(
  uri: unknown,
  reader: ResourceReader,
): Promise<{ contents: { uri: string; mimeType: string; text: string }[] } | RpcError> {
  if (typeof uri !== "string") return { code: RPC_INVALID_PARAMS, message: "resources/read needs params.uri, a string." };
  const handle = uri.startsWith(URI_PREFIX) ? uri.slice(URI_PREFIX.length) : "";
  const notFound: RpcError = {
    code: RPC_RESOURCE_NOT_FOUND,
    message: `Resource not found: ${uri}. Stored results are ${URI_PREFIX}<handle>, readable for RESULT_TTL_SECONDS after the call.`,
    data: { uri },
  };
  if (!HANDLE.test(handle)) return notFound;
  const stored = await reader.kv.get<StoredResult>(storedResultKey(handle), "json");
  // A result of a tool this key may not use is answered like a missing one: its existence is not shared.
  if (stored === null || !reader.mayRead(stored.tool)) return notFound;
  return { contents: [{ uri, mimeType: "text/plain", text: stored.content }] };
}
