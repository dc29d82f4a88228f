/**
 * A remote server's prompts and resources beside its tools: fetched when its tool list is
 * fetched from the server, registered in `mcpContent` under its toolset (`mcp-<server>`), prompts
 * named as its tools are (`mcp__<server>__<prompt>`), resources and templates by their own URIs
 * (a URI another server already offers is refused, as a colliding tool name is). Each get or read
 * is forwarded to the server and audited (src/mcp/server/content-methods.ts).
 *
 * A server without prompts or resources answers those lists with an error (method not found);
 * that is "none", never a failure of the server's tools.
 */
import {
  type CompletionQuery,
  type CompletionValues,
  type ContentContext,
  mcpContent,
  type PromptArgument,
  type PromptResult,
  type ResourceContents,
} from "../../registry/mcp-content.ts";
import type { McpClient } from "../client/mcp-client.ts";
import { remoteToolName, remoteToolset } from "./remote-tool-name.ts";
import { serverClient } from "./server-client.ts";
import type { ServerState } from "./server-state.ts";

interface Listed {
  name?: unknown;
  title?: unknown;
  description?: unknown;
  uri?: unknown;
  uriTemplate?: unknown;
  mimeType?: unknown;
  arguments?: unknown;
}

/** One list's entries, or none when the server does not offer that kind (or answers nonsense). */
async function listOf(client: McpClient, method: string, field: string, signal: AbortSignal): Promise<Listed[]> {
  try {
    const result = await client.request(method, {}, signal);
    const items = result[field];
    return Array.isArray(items) ? items.filter((item): item is Listed => typeof item === "object" && item !== null) : [];
  } catch {
    return [];
  }
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);
const optional = (key: string, value: string | undefined): Record<string, string> => (value === undefined ? {} : { [key]: value });

/** The optional fields a resource or template is shown with, as the server gave them. */
const described = (item: Listed): Record<string, string> => ({
  ...optional("title", text(item.title)),
  ...optional("description", text(item.description)),
  ...optional("mimeType", text(item.mimeType)),
});

function promptArguments(value: unknown): PromptArgument[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value
    .filter(
      (item): item is { name: string; description?: unknown; required?: unknown } =>
        typeof item === "object" && item !== null && typeof (item as { name?: unknown }).name === "string",
    )
    .map((item) => ({ name: item.name, ...optional("description", text(item.description)), ...(item.required === true ? { required: true } : {}) }));
}

/** completion/complete's `completion`, as the server sent it (completion.ts caps it). */
function completionOf(result: Record<string, unknown>): CompletionValues {
  const completion = result.completion;
  return typeof completion === "object" && completion !== null ? (completion as CompletionValues) : { values: [] };
}

function contentsOf(result: Record<string, unknown>): ResourceContents[] {
  return Array.isArray(result.contents) ? (result.contents as ResourceContents[]) : [];
}

/**
 * Replaces the server's registered prompts and resources with what it lists now. Never throws;
 * what could not be registered is added to the server's problems.
 */
export async function syncRemoteContent(env: Env, state: ServerState, signal: AbortSignal): Promise<void> {
  const server = state.config.name;
  const toolset = remoteToolset(server);
  const client = serverClient(env, state);
  const [prompts, resources, templates] = await Promise.all([
    listOf(client, "prompts/list", "prompts", signal),
    listOf(client, "resources/list", "resources", signal),
    listOf(client, "resources/templates/list", "resourceTemplates", signal),
  ]);
  mcpContent.deregisterToolset(toolset);
  const forward = (ctx: ContentContext) => serverClient(ctx.env, state);
  // The server's own completions of its prompts and templates, asked under their own names.
  const completeAt = (ref: Record<string, string>) => async (query: CompletionQuery, ctx: ContentContext) =>
    completionOf(
      await forward(ctx).request(
        "completion/complete",
        { ref, argument: { name: query.argument, value: query.value }, context: { arguments: query.context } },
        ctx.signal,
      ),
    );
  const problems: string[] = [];
  for (const prompt of prompts) {
    const remote = text(prompt.name);
    if (remote === undefined) continue;
    const args = promptArguments(prompt.arguments);
    const registration = mcpContent.registerPrompt({
      name: remoteToolName(server, remote),
      toolset,
      server,
      ...optional("title", text(prompt.title)),
      description: text(prompt.description) ?? `MCP prompt ${remote} from ${server}`,
      ...(args === undefined ? {} : { arguments: args }),
      // biome-ignore lint/plugin/no-double-cast: the remote server's prompts/get result is relayed as it sent it, not validated here
      get: async (values, ctx) => (await forward(ctx).request("prompts/get", { name: remote, arguments: values }, ctx.signal)) as unknown as PromptResult,
      complete: completeAt({ type: "ref/prompt", name: remote }),
    });
    if (!registration.ok) problems.push(registration.reason);
  }
  for (const resource of resources) {
    const uri = text(resource.uri);
    if (uri === undefined) continue;
    const registration = mcpContent.registerResource({
      uri,
      name: remoteToolName(server, text(resource.name) ?? uri),
      toolset,
      server,
      ...described(resource),
      read: async (ctx) => contentsOf(await forward(ctx).request("resources/read", { uri }, ctx.signal)),
    });
    if (!registration.ok) problems.push(`${registration.reason} by another server`);
  }
  for (const template of templates) {
    const uriTemplate = text(template.uriTemplate);
    if (uriTemplate === undefined) continue;
    const registration = mcpContent.registerTemplate({
      uriTemplate,
      name: remoteToolName(server, text(template.name) ?? uriTemplate),
      toolset,
      server,
      ...described(template),
      read: async (uri, _params, ctx) => contentsOf(await forward(ctx).request("resources/read", { uri }, ctx.signal)),
      complete: completeAt({ type: "ref/resource", uri: uriTemplate }),
    });
    if (!registration.ok) problems.push(`${registration.reason} by another server`);
  }
  for (const problem of problems) console.error(`MCP server '${server}': ${problem}`);
  state.problems = [...state.problems, ...problems];
}

/** Takes the server's prompts and resources out (removed, disabled or reconfigured). */
export function removeRemoteContent(state: ServerState): void {
  mcpContent.deregisterToolset(remoteToolset(state.config.name));
}
