/**
 * Answering what a 2025-era server asks its client mid-request (MCP 2025 "Elicitation",
 * "Sampling"): a JSON-RPC request on the stream that carries the response, whose answer goes back
 * as a JSON-RPC response. Shared by both HTTP transports, which differ only in where that answer
 * is POSTed (Streamable HTTP: the endpoint, under the session; legacy HTTP+SSE: the endpoint its
 * stream announced). When no one can answer, the server gets an error response, so it never
 * waits for an answer that cannot come.
 */
import { CLIENT_FEATURE_METHODS, METHOD_ECHO_CHARS } from "../replies/question-capability.ts";
import { type InputAnswerer, type JsonRpcResponse, serverRequest } from "./json-rpc.ts";

/** JSON-RPC's "internal error": what the server hears when its question could not be answered. */
const RPC_INTERNAL_ERROR = -32603;
const RPC_METHOD_NOT_FOUND = -32601;

/** Carries the answerer's own failure through a transport's classification of fetch errors. */
// No parameter properties: this module also runs under Node's type stripping (scripts/mcp/).
export class AnswerFailed extends Error {
  readonly reason: unknown;
  constructor(reason: unknown) {
    super("the client's answer to the server's request failed");
    this.reason = reason;
  }
}

/**
 * Answers one server-to-client request through `answer` and sends the response with `respond`;
 * anything else on the stream (an unrelated response) is ignored. When the answerer fails, the
 * server is told first and the failure is thrown as AnswerFailed.
 */
export async function answerServerRequest(
  message: unknown,
  answer: InputAnswerer | undefined,
  respond: (response: JsonRpcResponse) => Promise<void>,
): Promise<void> {
  const asked = serverRequest(message);
  if (asked === undefined) return;
  const { id, method, params } = asked;
  // A liveness check is toolgate's to answer (2025 "Ping": a prompt empty result); only questions
  // for the person or the model are the calling client's, and anything else is no question at all.
  if (method === "ping") return respond({ jsonrpc: "2.0", id, result: {} });
  if (!CLIENT_FEATURE_METHODS.has(method)) {
    return respond({ jsonrpc: "2.0", id, error: { code: RPC_METHOD_NOT_FOUND, message: `toolgate does not answer '${method.slice(0, METHOD_ECHO_CHARS)}'` } });
  }
  if (answer === undefined) {
    return respond({ jsonrpc: "2.0", id, error: { code: RPC_METHOD_NOT_FOUND, message: `toolgate cannot forward '${method}' outside a tool call` } });
  }
  let result: unknown;
  try {
    result = (await answer({ [String(id)]: { method, params } }))[String(id)];
  } catch (reason) {
    // Tell the server before giving up, so its handler ends now rather than at its own timeout.
    const error = { code: RPC_INTERNAL_ERROR, message: `the client that made this call did not answer '${method}'` };
    await respond({ jsonrpc: "2.0", id, error }).catch(() => undefined);
    throw new AnswerFailed(reason);
  }
  await respond({ jsonrpc: "2.0", id, result: (result ?? {}) as Record<string, unknown> });
}
