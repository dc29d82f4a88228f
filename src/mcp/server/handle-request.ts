/**
 * One MCP request in, one JSON-RPC answer out: the methods toolgate serves (lifecycle, ping,
 * logging, tools, and, in content-methods.ts, prompts and resources). Results are returned as
 * JSON text, so the hot methods (tools/list, tools/call) never build and re-serialise a large
 * object.
 */

import { LOG_LEVELS } from "../../registry/client-channel.ts";
import { availableEntries } from "../../registry/definitions.ts";
import { callTool } from "./call-tool.ts";
import { complete } from "./completion.ts";
import { getPrompt, listPrompts, listResources, listTemplates, readResource } from "./content-methods.ts";
import { presentedToolsJson } from "./curated-tools.ts";
import { type Answer, RPC_INVALID_PARAMS, RPC_METHOD_NOT_FOUND, RPC_RESOURCE_NOT_FOUND, type RpcRequest } from "./json-rpc.ts";
import type { McpContext } from "./mcp-context.ts";
import { SERVER_INFO_META_KEY } from "./modern-envelope.ts";
import { modernResult } from "./modern-results.ts";
import { MODERN_PROTOCOL_VERSIONS, negotiateProtocolVersion } from "./protocol-versions.ts";
import { subscribe, unsubscribe } from "./resource-subscriptions.ts";

const EMPTY: Answer = { result: "{}" };
const SERVER_VERSION = "0.1.0";

type Method = (request: RpcRequest, ctx: McpContext) => Answer | Promise<Answer>;

const METHODS: Readonly<Record<string, Method>> = {
  initialize,
  ping: () => EMPTY,
  "logging/setLevel": setLevel,
  "tools/list": listTools,
  "tools/call": callTool,
  "resources/list": listResources,
  "resources/templates/list": listTemplates,
  "resources/read": readResource,
  "resources/subscribe": subscribe,
  "resources/unsubscribe": unsubscribe,
  "prompts/list": listPrompts,
  "prompts/get": getPrompt,
  "completion/complete": complete,
};

/**
 * The modern era's methods (2026-07-28): no lifecycle, ping, logging/setLevel or resource
 * subscriptions, which the revision removed; `server/discover` instead.
 */
const MODERN_METHODS: Readonly<Record<string, Method>> = {
  "server/discover": discover,
  "tools/list": listTools,
  "tools/call": callTool,
  "resources/list": listResources,
  "resources/templates/list": listTemplates,
  "resources/read": readResource,
  "prompts/list": listPrompts,
  "prompts/get": getPrompt,
  "completion/complete": complete,
};

const methodsOf = (ctx: McpContext): Readonly<Record<string, Method>> => (ctx.modern === undefined ? METHODS : MODERN_METHODS);

/** Whether the modern era has `method` (a modern request for one it lacks is HTTP 404, the revision says). */
export function servesModernMethod(method: string): boolean {
  return Object.hasOwn(MODERN_METHODS, method);
}

/**
 * Answers one request as the method gives it; never throws for anything a client can send. A
 * modern request's answer then goes through eraAnswer, which the caller applies once it has it:
 * one async layer less on every modern call than wrapping the method here.
 */
export function handleRequest(request: RpcRequest, ctx: McpContext): Answer | Promise<Answer> {
  const methods = methodsOf(ctx);
  const method = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
  if (method === undefined) {
    return { error: { code: RPC_METHOD_NOT_FOUND, message: `Method not found: ${request.method}. This server offers ${Object.keys(methods).join(", ")}.` } };
  }
  return method(request, ctx);
}

/** A method's answer as the request's era words it: unchanged on the 2025 lanes, with the modern fields otherwise. */
export function eraAnswer(request: RpcRequest, answer: Answer, ctx: McpContext): Answer {
  if (ctx.modern === undefined) return answer;
  if ("result" in answer) return { result: modernResult(request.method, answer.result, serverInfoJson(ctx)) };
  // 2026-07-28 changelog (minor 6): an unknown resource is Invalid Params, no longer -32002.
  return answer.error.code === RPC_RESOURCE_NOT_FOUND ? { error: { ...answer.error, code: RPC_INVALID_PARAMS } } : answer;
}

const serverInfoOf = (ctx: McpContext) => {
  const scope = ctx.scope.allowedTools?.toolset;
  return { name: scope === undefined ? "toolgate" : `toolgate/${scope}`, version: SERVER_VERSION };
};

/** /mcp's identity, the same for every request: serialised once. */
const GATEWAY_SERVER_INFO_JSON = JSON.stringify({ name: "toolgate", version: SERVER_VERSION });

const serverInfoJson = (ctx: McpContext): string =>
  ctx.scope.allowedTools?.toolset === undefined ? GATEWAY_SERVER_INFO_JSON : JSON.stringify(serverInfoOf(ctx));

function instructionsOf(ctx: McpContext): string {
  const scope = ctx.scope.allowedTools?.toolset;
  return scope === undefined
    ? "toolgate: the tools this API key may use. A failed call's text says what went wrong and what to do next. Results too large to return inline are resources (toolgate://results/{handle})."
    : `toolgate toolset '${scope}': the tools of this toolset this API key may use.`;
}

/** server/discover: the modern revisions (2025 ones are negotiated by initialize) and what this key's server offers. */
function discover(_request: RpcRequest, ctx: McpContext): Answer {
  return {
    result: JSON.stringify({
      supportedVersions: MODERN_PROTOCOL_VERSIONS,
      capabilities: { tools: {}, resources: {}, prompts: {}, completions: {}, logging: {} },
      instructions: instructionsOf(ctx),
      // Also stamped by modernResult; here too so the result reads whole where it is built.
      _meta: { [SERVER_INFO_META_KEY]: serverInfoOf(ctx) },
    }),
  };
}

function initialize(request: RpcRequest, ctx: McpContext): Answer {
  return {
    result: JSON.stringify({
      protocolVersion: negotiateProtocolVersion(request.params.protocolVersion),
      // No listChanged: there is no standalone stream to send it on. Subscriptions live in the MCP
      // session (resource-subscriptions.ts), so only a server that issues sessions offers them.
      capabilities: {
        tools: { listChanged: false },
        logging: {},
        resources: ctx.scope.config.mcpSessions.secret === undefined ? {} : { subscribe: true },
        prompts: { listChanged: false },
        completions: {},
      },
      serverInfo: serverInfoOf(ctx),
      instructions: instructionsOf(ctx),
    }),
  };
}

function setLevel(request: RpcRequest): Answer {
  const level = request.params.level;
  if (typeof level !== "string" || !(LOG_LEVELS as readonly string[]).includes(level)) {
    return { error: { code: RPC_INVALID_PARAMS, message: `Invalid params: level must be one of ${LOG_LEVELS.join(", ")}; got ${JSON.stringify(level)}.` } };
  }
  // Stateless: acknowledged; client-channel.ts says which levels a call sends.
  return EMPTY;
}

async function listTools(_request: RpcRequest, ctx: McpContext): Promise<Answer> {
  const { allowedTools, access, env, catalog } = ctx.scope;
  const names = allowedTools === undefined ? catalog.names() : [...allowedTools.names];
  const entries = await availableEntries(
    names.filter((name) => access.decide(name).allowed),
    env,
  );
  return { result: `{"tools":${presentedToolsJson(entries, allowedTools, env)}}` };
}
