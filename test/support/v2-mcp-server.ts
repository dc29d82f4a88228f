/**
 * The official v2 SDK server (`@modelcontextprotocol/server` 2.4) as a federated upstream, run
 * by the outbound stand-in in Node at http://v2-mcp.upstream.test/mcp through the SDK's own
 * web-standard entry, `createMcpHandler`: it answers the modern era (`server/discover`, the
 * envelope, `input_required`) and falls back to a stateless 2025 lane for `initialize`, as the
 * SDK ships it. The Worker reaches it over its real outbound fetch, as it would on the internet.
 *
 *   echo_era       echoes the protocol version and client capabilities the request declared
 *   confirm_order  asks the client (form-mode elicitation, in the modern era `input_required`)
 *                  whether to place the order of `item`, and answers with what the person chose
 *                  and the requestState it got back (proof that it came back verbatim), and how
 *                  often it asked for that item (proof that a retry resumed rather than started over)
 *   open_link      asks the client to send the person to `url` (URL-mode elicitation; in the modern
 *                  era `input_required`) and answers with the action the person took there
 */
import { acceptedContent, createMcpHandler, inputRequired, inputResponse, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

export const V2_MCP_HOST = "v2-mcp.upstream.test";

const CONFIRM_SCHEMA = { type: "object" as const, properties: { confirm: { type: "boolean" as const, title: "Place the order?" } }, required: ["confirm"] };

/** How often `confirm_order` asked, by item: a retry that resumes from the state asks no more. */
const asks = new Map<string, number>();

function v2Server(): McpServer {
  const server = new McpServer({ name: "v2-upstream", version: "2.4.0" });
  server.registerTool("echo_era", { description: "Echoes the era and capabilities of the request", inputSchema: z.object({}) }, async (_args, ctx) => ({
    content: [{ type: "text", text: JSON.stringify({ envelope: ctx.mcpReq.envelope ?? null }) }],
  }));
  server.registerTool(
    "confirm_order",
    { description: "Places an order once the person confirms it", inputSchema: z.object({ item: z.string() }) },
    async ({ item }, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, "confirm");
      if (answer === undefined) {
        asks.set(item, (asks.get(item) ?? 0) + 1);
        return inputRequired({
          inputRequests: { confirm: inputRequired.elicit({ message: `Place the order of ${item}?`, requestedSchema: CONFIRM_SCHEMA }) },
          requestState: `v2-state:${item}`,
        });
      }
      const state = ctx.mcpReq.requestState();
      const outcome = answer.confirm === true ? "placed" : "cancelled";
      return { content: [{ type: "text", text: `order of ${item} ${outcome} (state ${String(state)}; asked ${asks.get(item) ?? 0} time(s))` }] };
    },
  );
  server.registerTool(
    "open_link",
    { description: "Sends the person to a page to finish something there", inputSchema: z.object({ url: z.string() }) },
    async ({ url }, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, "visit");
      if (answer.kind !== "elicit") {
        return inputRequired({ inputRequests: { visit: inputRequired.elicitUrl({ message: "Finish signing in on this page.", url }) } });
      }
      return { content: [{ type: "text", text: `the person chose ${answer.action} for ${url}` }] };
    },
  );
  return server;
}

const handler = createMcpHandler(v2Server);

/** Answers one request to the v2 server. */
export function v2McpServer(request: Request): Promise<Response> {
  return handler.fetch(request);
}
