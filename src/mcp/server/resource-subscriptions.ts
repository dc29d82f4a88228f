/**
 * resources/subscribe and resources/unsubscribe (MCP server/resources, 2025 lanes). A
 * subscription belongs to the MCP session (Mcp-Session-Id) and the calling key, and lives in the
 * session's Session object (src/approvals/session-subscriptions.ts): it survives a Worker restart,
 * another isolate answering, and a dropped stream, and ends when the session's object is gone.
 *
 * toolgate has no standalone stream (GET /mcp is 405), so `notifications/resources/updated` goes
 * where the transport allows a server to speak: the response stream of the request that changed
 * the resource. The one resource toolgate itself changes is the key's memory (`toolgate://memory`),
 * changed by a `memory` tool call; a change made elsewhere (the REST API, another session) reaches
 * a subscriber on its next read, not as a notification. A remote server's resources cannot be
 * subscribed to: toolgate does not relay their servers' notifications.
 */
import { sessionStub } from "../../approvals/session-stub.ts";
import type { CallOutcome } from "../../pipeline/types.ts";
import { mayUseTool, readerOf } from "./content-methods.ts";
import { notificationText, RPC_INVALID_PARAMS, RPC_INVALID_REQUEST, RPC_RESOURCE_NOT_FOUND, type RpcError, type RpcRequest } from "./json-rpc.ts";
import type { McpContext } from "./mcp-context.ts";
import { MEMORY_RESOURCE_URI, MEMORY_TOOL } from "./memory-resource.ts";

type Answer = { result: string } | { error: RpcError };

const EMPTY: Answer = { result: "{}" };

export function subscribe(request: RpcRequest, ctx: McpContext): Promise<Answer> | Answer {
  return change(request, ctx, "subscribe");
}

export function unsubscribe(request: RpcRequest, ctx: McpContext): Promise<Answer> | Answer {
  return change(request, ctx, "unsubscribe");
}

async function change(request: RpcRequest, ctx: McpContext, action: "subscribe" | "unsubscribe"): Promise<Answer> {
  const { uri } = request.params;
  if (typeof uri !== "string")
    return { error: { code: RPC_INVALID_PARAMS, message: `Invalid params: ${request.method} needs params.uri, the resource's URI.` } };
  if (!ctx.inSession) {
    return {
      error: {
        code: RPC_INVALID_REQUEST,
        message: `${request.method} needs an MCP session: send the Mcp-Session-Id initialize answered with. Without one no later request can carry the notification.`,
      },
    };
  }
  // Unsubscribing from anything is harmless; subscribing needs a resource the key may read and toolgate can watch.
  if (action === "subscribe") {
    const refusal = unwatchable(uri, ctx);
    if (refusal !== undefined) return { error: refusal };
  }
  const { keyId, sessionId, env } = ctx.scope;
  const answer = await sessionStub(env, sessionId).subscriptions({ keyId, uri, action });
  if (answer.full === true) {
    return { error: { code: RPC_INVALID_REQUEST, message: `This session already has the most subscriptions one key may hold; unsubscribe from one first.` } };
  }
  return EMPTY;
}

function unwatchable(uri: string, ctx: McpContext): RpcError | undefined {
  if (uri === MEMORY_RESOURCE_URI && mayUseTool(ctx, MEMORY_TOOL)) return undefined;
  const reader = readerOf(uri, ctx);
  if (reader === undefined)
    return { code: RPC_RESOURCE_NOT_FOUND, message: `Resource not found: ${uri}. resources/list lists what this key may read.`, data: { uri } };
  if (reader.server !== undefined) {
    return {
      code: RPC_INVALID_PARAMS,
      message: `Invalid params: ${uri} belongs to MCP server '${reader.server}', whose update notifications toolgate does not relay; read it again to see changes.`,
    };
  }
  return undefined;
}

/**
 * After a tools/call in a session: tells the client, on the call's own stream, that a resource
 * it subscribed to changed. Only a successful `memory` call changes one, so other calls cost
 * nothing: undefined, not a promise to await.
 */
export function notifyChangedResources(outcome: CallOutcome, ctx: McpContext): Promise<void> | undefined {
  if (outcome.tool !== MEMORY_TOOL || outcome.status !== "ok" || !ctx.inSession || !ctx.outbound.canStream) return undefined;
  return notifyMemoryChanged(ctx);
}

async function notifyMemoryChanged(ctx: McpContext): Promise<void> {
  const { keyId, sessionId, env } = ctx.scope;
  const { subscribed } = await sessionStub(env, sessionId).subscriptions({ keyId, uri: MEMORY_RESOURCE_URI, action: "check" });
  if (subscribed) ctx.outbound.send(notificationText("notifications/resources/updated", { uri: MEMORY_RESOURCE_URI }));
}
