/**
 * The MCP methods beside the tools: prompts (server/prompts) and resources (server/resources).
 * Resources are the key's memory, stored oversized results, and what is registered in
 * `mcpContent` (src/registry/mcp-content.ts); prompts are all registered there. A key sees and
 * reads only what it may reach (src/policy/content-access.ts), and an entry it may not reach is
 * answered like one that does not exist.
 */
import type { CallOutcome } from "../../pipeline/types.ts";
import { type ContentAccess, createContentAccess } from "../../policy/content-access.ts";
import { type ContentContext, mcpContent, type PromptEntry, type ResourceContents } from "../../registry/mcp-content.ts";
import { RPC_INTERNAL_ERROR, RPC_INVALID_PARAMS, type RpcError, type RpcRequest } from "./json-rpc.ts";
import type { McpContext } from "./mcp-context.ts";
import { MEMORY_RESOURCE, MEMORY_RESOURCE_URI, MEMORY_TOOL, readMemoryResource } from "./memory-resource.ts";
import { readStoredResult, STORED_RESULT_TEMPLATE } from "./stored-result-resources.ts";

type Answer = { result: string } | { error: RpcError };

/** Built once per request, on first use: most requests are tool calls and never need it. */
const reachOf = new WeakMap<McpContext, ContentAccess>();

/** What the request's key may reach of the registered prompts and resources. */
export function reach(ctx: McpContext): ContentAccess {
  let found = reachOf.get(ctx);
  if (found === undefined) {
    found = createContentAccess(ctx.scope.principal, ctx.scope.allowedTools?.toolset);
    reachOf.set(ctx, found);
  }
  return found;
}

/** Whether the request's key (and, on /mcp/{toolset}, the toolset) may use `tool`. */
export function mayUseTool(ctx: McpContext, tool: string): boolean {
  return ctx.scope.access.decide(tool).allowed && (ctx.scope.allowedTools === undefined || ctx.scope.allowedTools.names.has(tool));
}

const optional = <T>(key: string, value: T | undefined): Record<string, T> => (value === undefined ? {} : { [key]: value });

export function listPrompts(_request: RpcRequest, ctx: McpContext): Answer {
  const prompts = mcpContent
    .prompts()
    .filter(reach(ctx))
    .map((prompt) => ({ name: prompt.name, ...optional("title", prompt.title), description: prompt.description, ...optional("arguments", prompt.arguments) }));
  return { result: JSON.stringify({ prompts }) };
}

export async function getPrompt(request: RpcRequest, ctx: McpContext): Promise<Answer> {
  const { name, arguments: args = {} } = request.params;
  if (typeof name !== "string") return invalid("prompts/get needs params.name, the prompt's name as a string.");
  const prompt = mcpContent.prompt(name);
  if (prompt === undefined || !reach(ctx)(prompt)) return invalid(`Unknown prompt: ${name}. prompts/list lists the prompts this key may use.`);
  const checked = promptArguments(prompt, args);
  if (typeof checked === "string") return invalid(checked);
  return forwarded(
    request,
    ctx,
    { name: prompt.name, toolset: prompt.toolset, server: prompt.server, arguments: { name, arguments: checked } },
    async (content) => prompt.get(checked, content),
  );
}

/**
 * Runs a get or read; one of a remote server's is audited like a remote tool call (the prompt's
 * name, or `resources/read`, as the tool), and its failure is a JSON-RPC error naming the server.
 */
async function forwarded<T>(
  request: RpcRequest,
  ctx: McpContext,
  audited: { name: string; toolset: string; server: string | undefined; arguments: Record<string, unknown> },
  run: (content: ContentContext) => Promise<T> | T,
): Promise<Answer> {
  const content: ContentContext = { env: ctx.scope.env, signal: ctx.scope.connection.signal };
  if (audited.server === undefined) return { result: JSON.stringify(await run(content)) };
  const startedAt = Date.now();
  let text: string;
  let failure: string | undefined;
  try {
    text = JSON.stringify(await run(content));
  } catch (error) {
    failure = `MCP server '${audited.server}' could not answer ${request.method}: ${error instanceof Error ? error.message : String(error)}`;
    text = failure;
  }
  const outcome: CallOutcome = {
    callId: String(request.id),
    tool: audited.name,
    toolset: audited.toolset,
    status: failure === undefined ? "ok" : "error",
    content: text,
    arguments: audited.arguments,
    ...(failure === undefined ? {} : { errorCode: "UPSTREAM_ERROR" as const }),
    durationMs: Date.now() - startedAt,
    attempts: 1,
    coercions: [],
    truncated: false,
    resultChars: text.length,
  };
  const { scope } = ctx;
  ctx.parts.batch.recordBatch(scope.env, scope.waitUntil, [{ rawArguments: audited.arguments, outcome, finishedAt: Date.now() }], {
    keyId: scope.keyId,
    sessionId: scope.sessionId === "" ? String(request.id) : scope.sessionId,
  });
  return failure === undefined ? { result: text } : { error: { code: RPC_INTERNAL_ERROR, message: failure } };
}

/** MCP server/prompts: arguments are a string map; a missing required one is invalid params. */
function promptArguments(prompt: PromptEntry, args: unknown): Record<string, string> | string {
  if (typeof args !== "object" || args === null || Array.isArray(args))
    return `Invalid params: prompts/get of '${prompt.name}' needs params.arguments as an object of strings.`;
  const values = args as Record<string, unknown>;
  const bad = Object.entries(values).find(([, value]) => typeof value !== "string");
  if (bad !== undefined) return `Invalid params: argument '${bad[0]}' of prompt '${prompt.name}' must be a string, got ${JSON.stringify(bad[1])}.`;
  const missing = (prompt.arguments ?? [])
    .filter((argument) => argument.required === true && values[argument.name] === undefined)
    .map((argument) => argument.name);
  if (missing.length > 0)
    return `Invalid params: prompt '${prompt.name}' needs the argument${missing.length === 1 ? "" : "s"} ${missing.map((m) => `'${m}'`).join(", ")}.`;
  return values as Record<string, string>;
}

/** Stored results are not listed (handles are not indexed by key); the key's memory and registered resources are. */
export function listResources(_request: RpcRequest, ctx: McpContext): Answer {
  const registered = mcpContent
    .resources()
    .filter(reach(ctx))
    .map((resource) => ({
      uri: resource.uri,
      name: resource.name,
      ...optional("title", resource.title),
      ...optional("description", resource.description),
      ...optional("mimeType", resource.mimeType),
    }));
  return { result: JSON.stringify({ resources: [...(mayUseTool(ctx, MEMORY_TOOL) ? [MEMORY_RESOURCE] : []), ...registered] }) };
}

export function listTemplates(_request: RpcRequest, ctx: McpContext): Answer {
  const registered = mcpContent
    .templates()
    .filter(reach(ctx))
    .map((template) => ({
      uriTemplate: template.uriTemplate,
      name: template.name,
      ...optional("title", template.title),
      ...optional("description", template.description),
      ...optional("mimeType", template.mimeType),
    }));
  return { result: JSON.stringify({ resourceTemplates: [STORED_RESULT_TEMPLATE, ...registered] }) };
}

export async function readResource(request: RpcRequest, ctx: McpContext): Promise<Answer> {
  const { uri } = request.params;
  // Without the tool, the memory URI is answered like any unknown one (by the stored-result reader).
  if (uri === MEMORY_RESOURCE_URI && mayUseTool(ctx, MEMORY_TOOL)) return { result: JSON.stringify(await readMemoryResource(ctx.scope.env, ctx.scope.keyId)) };
  if (typeof uri === "string") {
    const registered = readerOf(uri, ctx);
    if (registered !== undefined) {
      return forwarded(
        request,
        ctx,
        { name: "resources/read", toolset: registered.toolset, server: registered.server, arguments: { uri } },
        async (content) => ({ contents: await registered.read(content) }),
      );
    }
  }
  const read = await readStoredResult(uri, { kv: ctx.scope.env.KV, mayRead: (tool) => mayUseTool(ctx, tool) });
  return "code" in read ? { error: read } : { result: JSON.stringify(read) };
}

export interface Reader {
  toolset: string;
  server: string | undefined;
  read(content: ContentContext): ResourceContents[] | Promise<ResourceContents[]>;
}

/** A registered resource, or the first reachable template the URI matches; undefined otherwise. */
export function readerOf(uri: string, ctx: McpContext): Reader | undefined {
  const resource = mcpContent.resource(uri);
  if (resource !== undefined && reach(ctx)(resource)) return { toolset: resource.toolset, server: resource.server, read: (content) => resource.read(content) };
  const template = mcpContent.matchTemplates(uri).find(({ entry }) => reach(ctx)(entry));
  if (template === undefined) return undefined;
  const { entry, params } = template;
  return { toolset: entry.toolset, server: entry.server, read: (content) => entry.read(uri, params, content) };
}

function invalid(message: string): Answer {
  return { error: { code: RPC_INVALID_PARAMS, message } };
}
