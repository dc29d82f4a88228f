/**
 * Server-to-client requests during a tools/call (sampling/createMessage, elicitation/create):
 * the question goes out on the call's SSE stream, and the client's answer, POSTed separately
 * and perhaps to another isolate, comes back through the request id's McpReplies object.
 */
import type { Outbound } from "../server/client-channel.ts";
import { type RpcResponse, requestText } from "../server/json-rpc.ts";
import type { ClientReply } from "./mcp-replies.ts";

/** Ids of our requests to clients, so an answer to anything else is never forwarded. */
const REQUEST_ID_PREFIX = "toolgate-";

/** How long a call waits for a person or a model at the client; the call's deadline still applies. */
const CLIENT_REPLY_TIMEOUT_MS = 120_000;

/**
 * Thrown when the client refuses, fails or does not answer; the pipeline reports it as the tool's
 * failure. `code` is the JSON-RPC code of a refusal (-32601: the client has no such capability).
 */
export class ClientRequestError extends Error {
  override readonly name = "ClientRequestError";
  readonly code: number | undefined;
  constructor(message: string, code?: number) {
    super(message);
    this.code = code;
  }
}

/** `ClientChannel.request` for one call of `keyId`, sending on `outbound`. */
export function clientAsker(env: Env, keyId: string, outbound: Outbound): (method: string, params: Record<string, unknown>) => Promise<unknown> {
  return async function askClient(method, params) {
    const id = `${REQUEST_ID_PREFIX}${crypto.randomUUID()}`;
    const replies = env.MCP_REPLIES.get(env.MCP_REPLIES.idFromName(id));
    // Start waiting before asking, so the answer usually finds the asker already there.
    const waiting = replies.wait(keyId, CLIENT_REPLY_TIMEOUT_MS);
    outbound.send(requestText(id, method, params));
    // The RPC stub's type cannot express `unknown` (it is not provably serialisable); it is JSON.
    const reply = (await waiting) as ClientReply | undefined;
    if (reply === undefined) throw new ClientRequestError(`The client did not answer ${method} within ${CLIENT_REPLY_TIMEOUT_MS / 1000}s.`);
    if (reply.error !== undefined)
      throw new ClientRequestError(`The client refused ${method}: ${reply.error.message} (code ${reply.error.code}).`, reply.error.code);
    return reply.result;
  };
}

/** Hands a client's answer to the call that asked; answers to ids we never sent are ignored. */
export async function deliverReply(env: Env, keyId: string, response: RpcResponse): Promise<void> {
  if (typeof response.id !== "string" || !response.id.startsWith(REQUEST_ID_PREFIX)) return;
  const replies = env.MCP_REPLIES.get(env.MCP_REPLIES.idFromName(response.id));
  const delivered = await replies.deliver(keyId, {
    ...(response.result === undefined ? {} : { result: response.result }),
    ...(response.error === undefined ? {} : { error: response.error }),
  });
  if (!delivered) console.warn(`MCP: an answer to ${response.id} came from a key that did not ask; dropped.`);
}
