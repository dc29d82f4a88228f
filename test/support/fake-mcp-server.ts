/**
 * A scripted MCP server for what server-everything cannot show: tool names that need
 * sanitising or collide, a definition that changes (pinning) and announces it with
 * `notifications/tools/list_changed` on a response stream, an `isError` result, and a server that
 * starts failing. Built with the official SDK's server (tests may use the SDK; the Worker does
 * not) in stateless Streamable HTTP mode, answering in SSE so notifications travel in-band.
 *
 * Served by the outbound stand-in at http://mcp.upstream.test/<variant>:
 *   /names    tools whose names exercise sanitising, the 64-character cut and collisions
 *   /pinned   `greet` (its description is the mutable part), `mutate`, `fail`, `whoami` (echoes the
 *             Authorization header, and the X-Toolgate-Identity header when one arrived)
 *   /content  the same tools, and a prompt `review`, a resource `fake://notes/today` and a
 *             template `fake://notes/{day}` (federation of prompts and resources)
 *   /future   answers initialize with a protocol version no client knows (hand-written)
 *   /stray    legacy SSE whose endpoint event points at another origin (hand-written)
 *   /hostile  tools whose input schemas are nested 10,000 deep, hold an enum of 1,000,000
 *             values, or $ref themselves in a cycle, beside a plain one (hand-written text:
 *             JSON.stringify, and so the SDK, overflows on the deep one)
 *   /many     10,000 tools (hand-written)
 *   /modern   MCP 2026-07-28 only (hand-written): server/discover, tools/list, tools/call (`whatarrived`
 *             echoes the envelope and routing headers it got); checks the envelope and headers as
 *             the revision says, and refuses initialize, so a client that never probes fails
 *   /control  POST {"greetDescription"?, "down"?} changes the script; {"reset":true} restores it
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const INITIAL = { greetDescription: "Greets someone by name", down: false };
const script: typeof INITIAL = ((globalThis as { __toolgateFakeMcp?: typeof INITIAL }).__toolgateFakeMcp ??= { ...INITIAL });

const objectSchema = (properties: Record<string, unknown> = {}, required: string[] = []) => ({ type: "object", properties, required });

/** A name of 70 characters; two of them share their first 60. */
export const LONG_TOOL_A = `${"a".repeat(60)}_first_`;
export const LONG_TOOL_B = `${"a".repeat(60)}_second`;

function toolsOf(variant: string) {
  if (variant === "names") {
    return [
      { name: "list.items v2", description: "dots and spaces", inputSchema: objectSchema() },
      { name: LONG_TOOL_A, description: "long name A", inputSchema: objectSchema() },
      { name: LONG_TOOL_B, description: "long name B", inputSchema: objectSchema() },
      { name: "read.file", description: "collides with 'read file' once sanitised", inputSchema: objectSchema() },
      { name: "read file", description: "collides with 'read.file' once sanitised", inputSchema: objectSchema() },
      { name: "echo", description: "collides with a tool the test registers as mcp__fakenames__echo", inputSchema: objectSchema() },
      { name: "keep_me", description: "selected by include", inputSchema: objectSchema() },
      { name: "b__keep_me", description: "on server 'a' it becomes what 'keep_me' becomes on server 'a__b'", inputSchema: objectSchema() },
      { name: "drop_me", description: "removed by exclude", inputSchema: objectSchema() },
    ];
  }
  return [
    {
      name: "greet",
      description: script.greetDescription,
      inputSchema: objectSchema({ name: { type: "string" }, times: { type: "integer", minimum: 1 } }, ["name"]),
    },
    { name: "mutate", description: "Changes greet's description and announces the new list", inputSchema: objectSchema() },
    { name: "fail", description: "Always reports an error", inputSchema: objectSchema() },
    { name: "whoami", description: "Says which Authorization header arrived", inputSchema: objectSchema() },
  ];
}

function serverFor(variant: string): Server {
  const content = variant === "content";
  const server = new Server(
    { name: `fake-${variant}`, version: "1.0.0" },
    { capabilities: { tools: { listChanged: true }, ...(content ? { prompts: {}, resources: {} } : {}) } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolsOf(variant) }));
  if (content) {
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({
      prompts: [{ name: "review", description: "Asks for a review of a topic", arguments: [{ name: "topic", required: true }] }],
    }));
    server.setRequestHandler(GetPromptRequestSchema, async (request) => ({
      messages: [{ role: "user", content: { type: "text", text: `Review ${request.params.arguments?.topic ?? "?"}` } }],
    }));
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [{ uri: "fake://notes/today", name: "today", mimeType: "text/plain" }] }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [{ uriTemplate: "fake://notes/{day}", name: "by-day" }] }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({
      contents: [{ uri: request.params.uri, mimeType: "text/plain", text: `notes of ${request.params.uri}` }],
    }));
  }
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    switch (request.params.name) {
      case "greet":
        return { content: [{ type: "text", text: `Hello, ${String(args.name)}!`.repeat(Number(args.times ?? 1)) }] };
      case "mutate":
        script.greetDescription = `Greets someone by name (changed at ${Date.now()})`;
        await extra.sendNotification({ method: "notifications/tools/list_changed" });
        return { content: [{ type: "text", text: "greet changed" }] };
      case "whoami":
        return {
          content: [
            { type: "text", text: `authorization: ${String(extra.requestInfo?.headers.authorization ?? "none")}` },
            // The identity token (src/identity/) when one arrived, for test/identity/ to verify.
            ...(extra.requestInfo?.headers["x-toolgate-identity"] === undefined
              ? []
              : [{ type: "text", text: `identity: ${String(extra.requestInfo.headers["x-toolgate-identity"])}` }]),
          ],
        };
      case "fail":
        return { isError: true, content: [{ type: "text", text: "the widget is jammed (token=sk-live-123456)" }] };
      default:
        return { content: [{ type: "text", text: `called ${request.params.name}` }] };
    }
  });
  return server;
}

/** Answers one request to the fake server. */
export async function fakeMcpServer(request: Request): Promise<Response> {
  const variant = new URL(request.url).pathname.slice(1);
  if (variant === "control") {
    const body = (await request.json()) as Partial<typeof INITIAL> & { reset?: boolean };
    if (body.reset === true) Object.assign(script, INITIAL);
    if (body.greetDescription !== undefined) script.greetDescription = body.greetDescription;
    if (body.down !== undefined) script.down = body.down;
    return Response.json(script);
  }
  if (script.down) return new Response("service unavailable", { status: 503 });
  if (variant === "future") {
    const message = (await request.json()) as { id: number };
    return Response.json({
      jsonrpc: "2.0",
      id: message.id,
      result: { protocolVersion: "2099-01-01", capabilities: {}, serverInfo: { name: "future", version: "9" } },
    });
  }
  if (variant === "stray") {
    if (request.method !== "GET") return new Response("method not allowed", { status: 405 });
    return new Response("event: endpoint\ndata: http://elsewhere.test/message?session=1\n\n", { headers: { "content-type": "text/event-stream" } });
  }
  if (variant === "modern") return modernOnly(request.headers, (await request.json()) as { id?: number; method: string; params?: Record<string, unknown> });
  if (variant === "hostile" || variant === "many") return handWritten(variant, (await request.json()) as { id?: number; method: string });
  if (variant !== "names" && variant !== "pinned" && variant !== "content") return new Response("not found", { status: 404 });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await serverFor(variant).connect(transport);
  return transport.handleRequest(request);
}

/** The tools/list text of /hostile or /many, built once as text. */
const hostileLists = new Map<string, string>();

function hostileToolsText(variant: "hostile" | "many"): string {
  const cached = hostileLists.get(variant);
  if (cached !== undefined) return cached;
  const plain = '{"name":"plain","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}';
  let text: string;
  if (variant === "many") {
    text = Array.from({ length: 10_000 }, (_, i) => plain.replace('"plain"', `"tool_${i}"`)).join(",");
  } else {
    const deep = `{"name":"deep","inputSchema":{"type":"object","properties":{"a":${'{"items":'.repeat(10_000)}{}${"}".repeat(10_000)}}}}`;
    const wide = `{"name":"wide","inputSchema":{"type":"object","properties":{"e":{"enum":[${Array.from({ length: 1_000_000 }, (_, i) => i).join(",")}]}}}}`;
    const cycle =
      '{"name":"cycle","inputSchema":{"type":"object","properties":{"head":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"value":{"type":"integer"},"next":{"$ref":"#/$defs/node"}}}}}}';
    text = [deep, wide, cycle, plain].join(",");
  }
  hostileLists.set(variant, text);
  return text;
}

/** A stateless JSON-answering server for the hostile lists: initialize, tools/list, and an echo of any call. */
function handWritten(variant: "hostile" | "many", message: { id?: number; method: string }): Response {
  const headers = { "content-type": "application/json" };
  if (message.id === undefined) return new Response(null, { status: 202 });
  const answer = (result: string) => new Response(`{"jsonrpc":"2.0","id":${message.id},"result":${result}}`, { headers });
  if (message.method === "initialize")
    return answer(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake-${variant}","version":"1"}}`);
  if (message.method === "tools/list") return answer(`{"tools":[${hostileToolsText(variant)}]}`);
  if (message.method === "tools/call") return answer('{"content":[{"type":"text","text":"called"}]}');
  return answer("{}");
}

/** A server of the modern era alone (MCP 2026-07-28): no initialize, the envelope and routing headers checked on every request. */
function modernOnly(headers: Headers, message: { id?: number; method: string; params?: Record<string, unknown> }): Response {
  const reply = (body: Record<string, unknown>, status = 200) => Response.json({ jsonrpc: "2.0", id: message.id ?? null, ...body }, { status });
  const meta = (message.params?._meta ?? {}) as Record<string, unknown>;
  const version = meta["io.modelcontextprotocol/protocolVersion"];
  if (version === undefined) return reply({ error: { code: -32601, message: "This server speaks 2026-07-28 only; initialize is not a method here." } }, 404);
  if (headers.get("mcp-protocol-version") !== version || headers.get("mcp-method") !== message.method)
    return reply({ error: { code: -32020, message: "header mismatch" } }, 400);
  if (message.method === "tools/call" && headers.get("mcp-name") !== message.params?.name)
    return reply({ error: { code: -32020, message: "Mcp-Name mismatch" } }, 400);
  const result = (body: Record<string, unknown>) => reply({ result: { resultType: "complete", ...body } });
  switch (message.method) {
    case "server/discover":
      return result({
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "fake-modern", version: "1" } },
      });
    case "tools/list":
      return result({
        tools: [
          {
            name: "whatarrived",
            description: "Echoes the envelope and headers it got",
            inputSchema: { type: "object", properties: { note: { type: "string" } } },
          },
        ],
      });
    case "tools/call": {
      const arrived = {
        version,
        capabilities: meta["io.modelcontextprotocol/clientCapabilities"],
        method: headers.get("mcp-method"),
        name: headers.get("mcp-name"),
        arguments: message.params?.arguments,
      };
      return result({ content: [{ type: "text", text: JSON.stringify(arrived) }] });
    }
    default:
      return reply({ error: { code: -32601, message: `Method not found: ${message.method}` } }, 404);
  }
}
