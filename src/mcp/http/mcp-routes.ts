/**
 * The MCP door: `/mcp` serves the key's tools, `/mcp/{toolset}` one toolset as its own virtual
 * server, over Streamable HTTP (MCP basic/transports) without sessions, so any isolate can answer
 * any request. POST carries JSON-RPC; there is no standalone SSE stream (GET) or session to end
 * (DELETE), which the transport lets a server answer with 405.
 *
 * Order of checks: Host/Origin (DNS rebinding) first, then the API key, then the HTTP-level
 * shape (Content-Type, Accept, MCP-Protocol-Version, size), then JSON-RPC.
 */
import { Hono, type Context, type MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { authenticate } from "../../auth/authenticate.ts";
import type { GatewayParts } from "../../compose.ts";
import { loadConfig } from "../../config/config.ts";
import { openScope, openToolsetScope } from "../../pipeline/request-scope.ts";
import { accessOf, toolsetLookupOf } from "../../http/access.ts";
import { readRawBody } from "../../http/read-raw-body.ts";
import { describeRequestFailure, type RequestFailure } from "../../http/request-failure.ts";
import type { AppEnv } from "../../http/types.ts";
import { waitUntilOf } from "../../http/wait-until.ts";
import { errorText, parseBody, RPC_INVALID_REQUEST, RPC_SERVER_ERROR, type RpcError } from "../server/json-rpc.ts";
import type { McpContext } from "../server/mcp-context.ts";
import { processMessages } from "../server/process-messages.ts";
import { allowsBatches, DEFAULT_NEGOTIATED_PROTOCOL_VERSION, isSupportedProtocolVersion, negotiateProtocolVersion, SUPPORTED_PROTOCOL_VERSIONS } from "../server/protocol-versions.ts";
import { rebindingRefusal } from "./allowed-hosts.ts";
import { requestHost, requestOrigin } from "../../http/request-origin.ts";

/** Non-fatal, as Request.text() decodes: a stray byte becomes U+FFFD and JSON parsing judges the rest. */
const decoder = new TextDecoder();
import { ResponseStream, STREAM_OPENED } from "./response-stream.ts";

export interface McpRoutesOptions {
  /** Replaced authentication (the benchmark); the real one otherwise. */
  authenticate?: MiddlewareHandler<AppEnv>;
}

const JSON_HEADERS = { "content-type": "application/json" } as const;

/** An HTTP-level refusal with a JSON-RPC error body (id null: no request was read). */
function rpcRefusal(status: ContentfulStatusCode, error: RpcError, headers: Record<string, string> = {}): Response {
  return new Response(errorText(null, error), { status, headers: { ...JSON_HEADERS, ...headers } });
}

/** Request-level failures (401 and the like) in JSON-RPC form; `data` is our usual error body. */
function rpcFailureResponse(_c: Context, failure: RequestFailure): Response {
  const { status, body, headers } = describeRequestFailure(failure);
  return rpcRefusal(status, { code: RPC_SERVER_ERROR, message: body.error, data: body }, headers);
}

/** The /mcp routes on the isolate's parts, with the real authentication unless given another. */
export function mcpRoutes(parts: GatewayParts, options: McpRoutesOptions = {}): Hono<AppEnv> {
  const requireKey = options.authenticate ?? authenticate({ respond: rpcFailureResponse });
  const app = new Hono<AppEnv>();

  const guard: MiddlewareHandler<AppEnv> = async function guardRebinding(c, next) {
    const refusal = rebindingRefusal(requestHost(c.req.url), c.req.header("origin"), loadConfig(c.env).mcpAllowedHosts);
    if (refusal !== undefined) {
      return rpcRefusal(403, { code: RPC_SERVER_ERROR, message: `Forbidden: ${refusal} (DNS-rebinding protection). Set MCP_ALLOWED_HOSTS to the names this server is reached by.` });
    }
    return next();
  };
  // Hono's "/mcp/*" matches "/mcp" too.
  app.use("/mcp/*", guard);

  const notAllowed = () =>
    rpcRefusal(405, { code: RPC_SERVER_ERROR, message: "Method not allowed: this stateless server takes JSON-RPC over POST only (no standalone SSE stream, no session to delete)." }, { allow: "POST" });
  app.on(["GET", "DELETE"], ["/mcp", "/mcp/:toolset"], notAllowed);

  // Remote tools are synced (by the request scope) only once the key is known good.
  app.post("/mcp", requireKey, (c) => serve(c, undefined, parts));
  app.post("/mcp/:toolset", requireKey, (c) => serve(c, c.req.param("toolset"), parts));
  return app;
}

async function serve(c: Context<AppEnv>, toolset: string | undefined, parts: GatewayParts): Promise<Response> {
  const config = loadConfig(c.env);
  const contentType = c.req.header("content-type") ?? "";
  if (!contentType.toLowerCase().startsWith("application/json")) {
    return rpcRefusal(415, { code: RPC_SERVER_ERROR, message: `Unsupported Media Type: Content-Type must be application/json, got ${contentType === "" ? "none" : contentType}.` });
  }
  const accept = (c.req.header("accept") ?? "*/*").toLowerCase();
  if (!accept.includes("application/json") && !accept.includes("*/*")) {
    return rpcRefusal(406, { code: RPC_SERVER_ERROR, message: "Not Acceptable: the client must accept application/json and text/event-stream." });
  }
  const versionHeader = c.req.header("mcp-protocol-version");
  if (versionHeader !== undefined && !isSupportedProtocolVersion(versionHeader)) {
    return rpcRefusal(400, { code: RPC_SERVER_ERROR, message: `Bad Request: unsupported MCP-Protocol-Version ${versionHeader} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}).` });
  }
  const tooLarge = () => rpcRefusal(413, { code: RPC_SERVER_ERROR, message: `Payload Too Large: the body is over ${config.maxBodyBytes} bytes (MAX_BODY_BYTES).` });
  // The raw body, not c.req.text(): nothing else reads it, and Hono's body cache showed in the profile.
  const body = await readRawBody(c.req.raw, config.maxBodyBytes);
  if (!body.ok) return tooLarge();

  const parsed = parseBody(decoder.decode(body.bytes));
  if (!parsed.ok) return rpcRefusal(400, parsed.error);
  // A batch's messages all run at once, so it is held to the same count as a /v1 batch.
  if (parsed.messages.length > config.maxToolCalls) {
    return rpcRefusal(413, { code: RPC_INVALID_REQUEST, message: `Payload Too Large: a batch may hold at most ${config.maxToolCalls} messages (MAX_TOOL_CALLS); this one has ${parsed.messages.length}. Send them in several requests.` });
  }

  const principal = c.get("principal");
  const stream = new ResponseStream(accept.includes("text/event-stream") || accept.includes("*/*"));
  const input = {
    env: c.env,
    config,
    keyId: principal.keyId,
    access: () => accessOf(c),
    // Each tools/call gets a session of its own (handle-request.ts); this one is never used.
    sessionId: "",
    signal: c.req.raw.signal,
    waitUntil: waitUntilOf(c),
    origin: requestOrigin(c.req.url),
  };
  const opened = toolset === undefined ? await openScope(parts.pipeline, input) : await openToolsetScope(parts.pipeline, input, toolset, toolsetLookupOf(c));
  if ("unknownToolset" in opened) {
    return rpcRefusal(404, { code: RPC_SERVER_ERROR, message: `Unknown toolset: ${toolset}. GET /v1/toolsets lists the toolsets; /mcp serves every tool this key may use.` });
  }

  const version = versionHeader ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
  if (parsed.batch && !allowsBatches(version)) {
    return rpcRefusal(400, { code: RPC_INVALID_REQUEST, message: `Invalid Request: JSON-RPC batches are not part of MCP ${version} (2025-06-18 removed them); send one message per POST.` });
  }

  const first = parsed.messages[0];
  const initializing = !parsed.batch && first?.kind === "request" && first.method === "initialize";
  const ctx: McpContext = {
    principal,
    scope: opened,
    protocolVersion: initializing ? negotiateProtocolVersion(first.params.protocolVersion) : version,
    parts,
    outbound: stream,
  };
  const work = processMessages(parsed.messages, parsed.batch, ctx);
  const settled = await Promise.race([work, stream.opened]);
  if (settled === STREAM_OPENED) return stream.response(work);
  if (settled.length === 0) return new Response(null, { status: 202 });
  // A lone message that is not JSON-RPC is a bad request at the HTTP level too.
  const status = !parsed.batch && first?.kind === "invalid" ? 400 : 200;
  return new Response(parsed.batch ? `[${settled.join(",")}]` : settled[0], { status, headers: JSON_HEADERS });
}
