/**
 * A POST body's messages, answered: requests run concurrently, notifications and the client's
 * responses need no answer. In a batch (which the transport only lets through under revisions
 * that have them) `initialize` is refused, as 2025-03-26 keeps it out of batches.
 */
import { deliverReply } from "../replies/ask-client.ts";
import { eraAnswer, handleRequest } from "./handle-request.ts";
import { errorText, RPC_INTERNAL_ERROR, RPC_INVALID_REQUEST, type RpcMessage, resultText } from "./json-rpc.ts";
import type { McpContext } from "./mcp-context.ts";

/** The serialised responses, in the order of the requests; none when the body held no request. */
export async function processMessages(messages: readonly RpcMessage[], batch: boolean, ctx: McpContext): Promise<string[]> {
  // The common body, one request: answered without a batch's lists and Promise.all.
  const [only] = messages;
  if (!batch && only?.kind === "request") return [await answer(only, ctx)];
  const answers: Promise<string>[] = [];
  const deliveries: Promise<void>[] = [];
  for (const message of messages) {
    switch (message.kind) {
      case "invalid":
        answers.push(Promise.resolve(errorText(message.id, { code: RPC_INVALID_REQUEST, message: `Invalid Request: ${message.reason}.` })));
        break;
      case "request":
        if (batch && message.method === "initialize") {
          answers.push(
            Promise.resolve(errorText(message.id, { code: RPC_INVALID_REQUEST, message: "Invalid Request: initialize must not be part of a batch." })),
          );
          break;
        }
        answers.push(answer(message, ctx));
        break;
      case "response":
        // A client's answer to our sampling or elicitation request; the asking call may be in
        // another isolate. Delivered before the 202, so a client that sees it knows it landed.
        deliveries.push(
          deliverReply(ctx.scope.env, ctx.scope.keyId, message).catch((error: unknown) => {
            // The asking call then times out with a message saying the client did not answer.
            console.error(`MCP: could not deliver the answer to ${String(message.id)}: ${String(error)}`);
          }),
        );
        break;
      case "notification":
        // Stateless: notifications/initialized and cancellations change nothing here.
        break;
    }
  }
  // Most bodies carry no client answers: no promise and no extra turn for an empty list.
  if (deliveries.length > 0) await Promise.all(deliveries);
  return Promise.all(answers);
}

async function answer(request: Extract<RpcMessage, { kind: "request" }>, ctx: McpContext): Promise<string> {
  try {
    const answered = eraAnswer(request, await handleRequest(request, ctx), ctx);
    return "error" in answered ? errorText(request.id, answered.error) : resultText(request.id, answered.result);
  } catch (error) {
    console.error(`MCP ${request.method} failed unexpectedly: ${String(error)}`);
    return errorText(request.id, { code: RPC_INTERNAL_ERROR, message: "Internal error; the failure was logged." });
  }
}
