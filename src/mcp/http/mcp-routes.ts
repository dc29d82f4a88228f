/**
 * The MCP door: `/mcp` serves the key's tools, `/mcp/{toolset}` one toolset as its own virtual
 * server, over Streamable HTTP (MCP basic/transports). Sessions are signed ids any isolate can
 * verify (mcp-sessions.ts), so any isolate can answer any request. POST carries JSON-RPC; DELETE
 * ends a session's grants; there is no standalone SSE stream (GET), which the transport lets a
 * server answer with 405.
 *
 * Order of checks: Host/Origin (DNS rebinding) first, then the API key, then the HTTP-level
 * shape (Content-Type, Accept, MCP-Protocol-Version, size), then JSON-RPC.
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { GatewayParts } from "../../compose.ts";
import { loadConfig } from "../../config/config.ts";
import { accessOf, toolsetLookupOf } from "../../http/access.ts";
import { readBodyText } from "../../http/read-raw-body.ts";
import { requestConnection } from "../../http/request-connection.ts";
import { requestHost } from "../../http/request-origin.ts";
import type { AppEnv } from "../../http/types.ts";
import { waitUntilOf } from "../../http/wait-until.ts";
import { mcpAuthenticate } from "../../oauth/mcp-authenticate.ts";
import { openScope, openToolsetScope } from "../../pipeline/request-scope.ts";
import { servesModernMethod } from "../server/handle-request.ts";
import { errorText, parseBody, RPC_METHOD_NOT_FOUND } from "../server/json-rpc.ts";
import type { McpContext } from "../server/mcp-context.ts";
import { eraOf } from "../server/modern-envelope.ts";
import { processMessages } from "../server/process-messages.ts";
import {
  allowsBatches,
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  isModernEraVersion,
  isSupportedProtocolVersion,
  negotiateProtocolVersion,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "../server/protocol-versions.ts";
import { rebindingRefusal } from "./allowed-hosts.ts";
import { endSession, MCP_SESSION_HEADER, newSessionHeaders, sessionOfRequest } from "./mcp-sessions.ts";
import { ResponseStream, STREAM_OPENED } from "./response-stream.ts";
import { rpcFailureResponse } from "./rpc-failure-response.ts";

export interface McpRoutesOptions {
  /** Replaced authentication (the benchmark); the real one otherwise. */
  authenticate?: MiddlewareHandler<AppEnv>;
}

const JSON_HEADERS = { "content-type": "application/json" } as const;

/** What the transport accepts (MCP basic/transports: the client lists both in Accept). */
const ACCEPTS = ["application/json", "text/event-stream"] as const;

/** The /mcp routes on the isolate's parts, with the real authentication unless given another. */
export function mcpRoutes(parts: GatewayParts, options: McpRoutesOptions = {}): Hono<AppEnv> {
  // An API key, or an OAuth access token issued for this door; a 401 points at OAuth discovery.
  const requireKey = options.authenticate ?? mcpAuthenticate();
  const app = new Hono<AppEnv>();

  // Not async: a request it lets through goes on to next() without a promise of this frame's own.
  const guard: MiddlewareHandler<AppEnv> = function guardRebinding(c, next) {
    const refusal = rebindingRefusal(requestHost(c.req.url), c.req.raw.headers.get("origin") ?? undefined, loadConfig(c.env).mcpAllowedHosts);
    return refusal === undefined ? next() : Promise.resolve(rpcFailureResponse({ kind: "rebinding_refused", reason: refusal }));
  };
  // Hono's "/mcp/*" matches "/mcp" too.
  app.use("/mcp/*", guard);

  const notAllowed = () =>
    rpcFailureResponse({ kind: "method_not_allowed", allow: ["POST", "DELETE"], reason: "this server has no standalone SSE stream; JSON-RPC goes over POST" });
  app.get("/mcp", notAllowed);
  app.get("/mcp/:toolset", notAllowed);
  app.delete("/mcp", requireKey, (c) => endSession(c, loadConfig(c.env)));
  app.delete("/mcp/:toolset", requireKey, (c) => endSession(c, loadConfig(c.env)));

  // Remote tools are synced (by the request scope) only once the key is known good.
  app.post("/mcp", requireKey, (c) => serve(c, undefined, parts));
  app.post("/mcp/:toolset", requireKey, (c) => serve(c, c.req.param("toolset"), parts));
  return app;
}

async function serve(c: Context<AppEnv>, toolset: string | undefined, parts: GatewayParts): Promise<Response> {
  const config = loadConfig(c.env);
  // Read off the raw Headers: Hono's c.req.header() is a call more per header, and /mcp reads several.
  const headers = c.req.raw.headers;
  const contentType = headers.get("content-type") ?? "";
  if (!contentType.toLowerCase().startsWith("application/json")) {
    return rpcFailureResponse({ kind: "unsupported_media_type", received: contentType === "" ? undefined : contentType });
  }
  const accept = (headers.get("accept") ?? "*/*").toLowerCase();
  const anyType = accept.includes("*/*");
  if (!anyType && !accept.includes("application/json")) return rpcFailureResponse({ kind: "not_acceptable", accepts: ACCEPTS });
  const versionHeader = headers.get("mcp-protocol-version") ?? undefined;
  // A modern version is checked against the body once it is read (modern-envelope.ts), and refused with the request's id.
  if (versionHeader !== undefined && !isSupportedProtocolVersion(versionHeader) && !isModernEraVersion(versionHeader)) {
    return rpcFailureResponse({ kind: "unsupported_protocol_version", received: versionHeader, supported: SUPPORTED_PROTOCOL_VERSIONS });
  }
  // The raw request's text, not c.req.text(): nothing else reads it, and Hono's body cache showed in the profile.
  const body = await readBodyText(c.req.raw, config.maxBodyBytes);
  if (!body.ok) return rpcFailureResponse({ kind: "payload_too_large", limitBytes: config.maxBodyBytes });

  const parsed = parseBody(body.text);
  // Not JSON, or an empty batch: JSON-RPC's own errors (section 5.1), answered as it defines them.
  if (!parsed.ok) return new Response(errorText(null, parsed.error), { status: 400, headers: JSON_HEADERS });
  // A batch's messages all run at once, so it is held to the same count as a /v1 batch.
  if (parsed.messages.length > config.maxToolCalls)
    return rpcFailureResponse({ kind: "too_many_calls", count: parsed.messages.length, limit: config.maxToolCalls });

  const era = eraOf(parsed.messages, parsed.batch, versionHeader, headers);
  if (era.era === "refused") return new Response(errorText(era.id, era.error), { status: era.status, headers: JSON_HEADERS });
  const modern = era.era === "modern" ? era.envelope : undefined;
  const first = parsed.messages[0];
  if (modern !== undefined && first?.kind === "request" && !servesModernMethod(first.method)) {
    const error = { code: RPC_METHOD_NOT_FOUND, message: `Method not found: ${first.method} is not a method of protocol revision ${modern.protocolVersion}.` };
    return new Response(errorText(first.id, error), { status: 404, headers: JSON_HEADERS });
  }

  const principal = c.get("principal");
  const initializing = modern === undefined && !parsed.batch && first?.kind === "request" && first.method === "initialize";
  // initialize starts a session, so an id sent with it is not checked (nor used). The modern era
  // has no sessions: an Mcp-Session-Id it carries is ignored, as the revision says. Most requests
  // carry none, and need no await for it.
  const sentSession = initializing || modern !== undefined ? null : headers.get(MCP_SESSION_HEADER);
  const session = sentSession === null ? undefined : await sessionOfRequest(sentSession, principal.keyId, config);
  if (session?.ok === false) return rpcFailureResponse(session.failure);
  const sessionId = session?.sessionId;
  const stream = new ResponseStream(anyType || accept.includes("text/event-stream"));
  const input = {
    env: c.env,
    config,
    principal,
    access: () => accessOf(c),
    // Without an MCP session each tools/call gets a session of its own (handle-request.ts).
    sessionId: sessionId ?? "",
    matchApprovalsByArguments: sessionId !== undefined,
    connection: requestConnection(c.req.raw, c.get("oauthToken")),
    waitUntil: waitUntilOf(c),
  };
  const opened = toolset === undefined ? await openScope(parts.pipeline, input) : await openToolsetScope(parts.pipeline, input, toolset, toolsetLookupOf(c));
  if ("unknownToolset" in opened) return rpcFailureResponse({ kind: "unknown_toolset", name: opened.unknownToolset });

  const version = modern?.protocolVersion ?? versionHeader ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
  if (parsed.batch && !allowsBatches(version)) return rpcFailureResponse({ kind: "batch_not_supported", version });

  const ctx: McpContext = {
    scope: opened,
    protocolVersion: initializing ? negotiateProtocolVersion(first.params.protocolVersion) : version,
    parts,
    outbound: stream,
    inSession: sessionId !== undefined,
    modern,
  };
  const work = processMessages(parsed.messages, parsed.batch, ctx);
  const settled = await stream.settled(work);
  if (settled === STREAM_OPENED) return stream.response(work);
  if (settled.length === 0) return new Response(null, { status: 202 });
  // A lone message that is not JSON-RPC is a bad request at the HTTP level too.
  const status = !parsed.batch && first?.kind === "invalid" ? 400 : 200;
  const responseHeaders = initializing && status === 200 ? { ...JSON_HEADERS, ...(await newSessionHeaders(principal.keyId, config)) } : JSON_HEADERS;
  return new Response(parsed.batch ? `[${settled.join(",")}]` : settled[0], { status, headers: responseHeaders });
}
