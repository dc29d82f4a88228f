/**
 * The MCP door's one mapping of a request-level failure to the wire: a JSON-RPC error with id
 * null (no request was read), the failure's HTTP status and headers (describeRequestFailure, as
 * /v1 uses them), `data` its usual error body. The MCP transport refusals are RequestFailure
 * values like any other door's, so a status or header cannot drift from /v1's.
 */
import { describeRequestFailure, type RequestErrorBody, type RequestFailure } from "../../http/request-failure.ts";
import { errorText, RPC_INVALID_REQUEST, RPC_SERVER_ERROR } from "../server/json-rpc.ts";

/**
 * The JSON-RPC error message: MCP clients and the conformance suite have read these texts since
 * the door opened, and they name the MCP settings (MAX_BODY_BYTES, /mcp) where /v1 names its own,
 * so the kinds /v1 also answers keep their MCP wording; every other kind says what /v1 says.
 */
function rpcMessage(failure: RequestFailure, body: RequestErrorBody): string {
  switch (failure.kind) {
    case "unsupported_media_type":
      return `Unsupported Media Type: ${body.error}`;
    case "payload_too_large":
      return `Payload Too Large: the body is over ${failure.limitBytes} bytes (MAX_BODY_BYTES).`;
    case "too_many_calls":
      return `Payload Too Large: a batch may hold at most ${failure.limit} messages (MAX_TOOL_CALLS); this one has ${failure.count}. Send them in several requests.`;
    case "unknown_toolset":
      return `Unknown toolset: ${failure.name}. GET /v1/toolsets lists the toolsets; /mcp serves every tool this key may use.`;
    default:
      return body.error;
  }
}

/** JSON-RPC 2.0 section 5.1: a refusal of the request's shape is Invalid Request; the rest are server errors. */
function rpcCode(failure: RequestFailure): number {
  return failure.kind === "too_many_calls" || failure.kind === "batch_not_supported" ? RPC_INVALID_REQUEST : RPC_SERVER_ERROR;
}

/**
 * The response for a failure at the MCP door.
 *
 * @example
 * return rpcFailureResponse({ kind: "not_acceptable", accepts: ["application/json", "text/event-stream"] });
 */
export function rpcFailureResponse(failure: RequestFailure): Response {
  const { status, body, headers } = describeRequestFailure(failure);
  const error = { code: rpcCode(failure), message: rpcMessage(failure, body), data: body };
  return new Response(errorText(null, error), { status, headers: { "content-type": "application/json", ...headers } });
}
