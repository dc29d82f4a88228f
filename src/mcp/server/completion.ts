/**
 * completion/complete (MCP server/utilities/completion): suggestions for a prompt's argument or a
 * resource template's variable, from the entry's own `complete` (a remote server's prompt or
 * template forwards the question to that server). An entry without one answers with no values,
 * which the spec allows; an entry the key cannot reach is answered like one that does not exist.
 */
import { type CompletionQuery, type CompletionValues, MAX_COMPLETION_VALUES, mcpContent } from "../../registry/mcp-content.ts";
import { reach } from "./content-methods.ts";
import { RPC_INTERNAL_ERROR, RPC_INVALID_PARAMS, type RpcError, type RpcRequest } from "./json-rpc.ts";
import type { McpContext } from "./mcp-context.ts";

type Answer = { result: string } | { error: RpcError };

const NONE = '{"completion":{"values":[]}}';

/** A value a client may send: longer than any argument a person types, so no entry sees an unbounded string. */
const MAX_VALUE_CHARS = 1024;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

export async function complete(request: RpcRequest, ctx: McpContext): Promise<Answer> {
  const { ref, argument, context } = request.params;
  if (!isObject(ref) || !isObject(argument) || typeof argument.name !== "string" || typeof argument.value !== "string") {
    return invalid(
      'completion/complete needs params.ref ({"type":"ref/prompt","name":…} or {"type":"ref/resource","uri":…}) and params.argument ({"name":…,"value":…}).',
    );
  }
  if (argument.value.length > MAX_VALUE_CHARS) return invalid(`argument.value is ${argument.value.length} characters; at most ${MAX_VALUE_CHARS}.`);
  const query: CompletionQuery = { argument: argument.name, value: argument.value, context: contextArguments(context) };
  const entry = entryOf(ref, ctx);
  if (typeof entry === "string") return invalid(entry);
  if (entry.complete === undefined) return { result: NONE };
  try {
    return { result: JSON.stringify({ completion: capped(await entry.complete(query, { env: ctx.scope.env, signal: ctx.scope.connection.signal })) }) };
  } catch (error) {
    const from = entry.server === undefined ? "" : ` from MCP server '${entry.server}'`;
    return { error: { code: RPC_INTERNAL_ERROR, message: `Completion${from} failed: ${error instanceof Error ? error.message : String(error)}` } };
  }
}

/** The prompt or template `ref` names, if the key may reach it; otherwise what to tell the client. */
function entryOf(ref: Record<string, unknown>, ctx: McpContext) {
  if (ref.type === "ref/prompt" && typeof ref.name === "string") {
    const prompt = mcpContent.prompt(ref.name);
    return prompt !== undefined && reach(ctx)(prompt) ? prompt : `Unknown prompt: ${ref.name}. prompts/list lists the prompts this key may use.`;
  }
  if (ref.type === "ref/resource" && typeof ref.uri === "string") {
    const template = mcpContent.template(ref.uri);
    return template !== undefined && reach(ctx)(template)
      ? template
      : `Unknown resource template: ${ref.uri}. resources/templates/list lists the templates this key may use.`;
  }
  return `ref.type must be "ref/prompt" with a name or "ref/resource" with a uri; got ${JSON.stringify(ref.type)}.`;
}

/** `context.arguments`, the string ones only (the spec's shape); anything else is ignored. */
function contextArguments(context: unknown): Record<string, string> {
  if (!isObject(context) || !isObject(context.arguments)) return {};
  return Object.fromEntries(Object.entries(context.arguments).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

/** A remote server's answer is relayed within the spec's cap, whatever it sent. */
function capped(answer: CompletionValues): CompletionValues {
  const values = Array.isArray(answer.values) ? answer.values.filter((value) => typeof value === "string") : [];
  const total = typeof answer.total === "number" ? answer.total : undefined;
  if (values.length > MAX_COMPLETION_VALUES) return { values: values.slice(0, MAX_COMPLETION_VALUES), total: total ?? values.length, hasMore: true };
  return { values, ...(total === undefined ? {} : { total }), ...(answer.hasMore === true ? { hasMore: true } : {}) };
}

function invalid(message: string): Answer {
  return { error: { code: RPC_INVALID_PARAMS, message: `Invalid params: ${message}` } };
}
