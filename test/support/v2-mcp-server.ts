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
 *   needs_sign_in  (on LEGACY_PATH) answers URLElicitationRequiredError (-32042, the 2025-11-25 way to ask) with
 *                  `link` (default https://signin.example/<account>) until the person has visited
 *                  /finish-sign-in/<account> here, then says who is signed in
 */
import { acceptedContent, createMcpHandler, inputRequired, inputResponse, McpServer, UrlElicitationRequiredError } from "@modelcontextprotocol/server";
import { z } from "zod";

export const V2_MCP_HOST = "v2-mcp.upstream.test";

const CONFIRM_SCHEMA = { type: "object" as const, properties: { confirm: { type: "boolean" as const, title: "Place the order?" } }, required: ["confirm"] };

/** How often `confirm_order` asked, by item: a retry that resumes from the state asks no more. */
const asks = new Map<string, number>();
/** The accounts whose person finished signing in (GET /finish-sign-in/<account>). */
const signedIn = new Set<string>();
const FINISH_SIGN_IN = "/finish-sign-in/";

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
  server.registerTool(
    "needs_sign_in",
    { description: "Acts on an account once the person has signed in to it", inputSchema: z.object({ account: z.string(), link: z.string().optional() }) },
    async ({ account, link }) => {
      if (!signedIn.has(account)) {
        const url = link ?? `https://signin.example/${account}`;
        throw new UrlElicitationRequiredError([{ mode: "url", elicitationId: `sign-in-${account}`, url, message: `Sign in to ${account} first.` }]);
      }
      return { content: [{ type: "text", text: `signed in as ${account}` }] };
    },
  );
  return server;
}

const handler = createMcpHandler(v2Server);

/**
 * The same server as a 2025-only one would answer (the SDK's stateless 2025 lane), for what only
 * that era may send (URLElicitationRequiredError): `server/discover` is refused as a 2025 server
 * refuses an unknown method, so a client falls back to `initialize`.
 */
export const LEGACY_PATH = "/mcp-2025";

async function legacyFace(request: Request, url: URL): Promise<Response> {
  const body = request.method === "POST" ? await request.text() : undefined;
  let message: { id?: unknown; method?: unknown } | undefined;
  try {
    message = body === undefined ? undefined : (JSON.parse(body) as typeof message);
  } catch {
    // Not JSON: the SDK's own handler answers it as it would on /mcp.
  }
  if (message?.method === "server/discover") {
    return Response.json({ jsonrpc: "2.0", id: message.id ?? null, error: { code: -32601, message: "Method not found" } });
  }
  url.pathname = "/mcp";
  return handler.fetch(new Request(url, { method: request.method, headers: request.headers, body }));
}

/** Answers one request to the v2 server. */
export async function v2McpServer(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname.startsWith(FINISH_SIGN_IN)) {
    signedIn.add(decodeURIComponent(url.pathname.slice(FINISH_SIGN_IN.length)));
    return new Response(null, { status: 204 });
  }
  if (url.pathname === LEGACY_PATH) return legacyFace(request, url);
  return handler.fetch(request);
}
