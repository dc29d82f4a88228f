/**
 * The MCP door's HTTP-level refusals, each a request failure mapped once (rpc-failure-response.ts):
 * the status and headers /v1 would give the same failure, a JSON-RPC error with id null, the
 * message MCP clients have always read, and the usual error body as `data`.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../../../src/mcp/server/protocol-versions.ts";
import { MCP_BASE, mcpPost } from "../helpers.ts";

const ping = (id: number | string) => ({ jsonrpc: "2.0", id, method: "ping" });

/** The refusal's JSON-RPC error, after checking the envelope every refusal shares. */
async function rpcError(response: Response): Promise<{ code: number; message: string; data: { error: string; error_code: string } }> {
  expect(response.headers.get("content-type")).toBe("application/json");
  const body = (await response.json()) as {
    jsonrpc: string;
    id: unknown;
    error: { code: number; message: string; data: { error: string; error_code: string } };
  };
  expect(body).toMatchObject({ jsonrpc: "2.0", id: null });
  return body.error;
}

describe("MCP transport refusals", () => {
  it("refuses a foreign Host with 403 REBINDING_REFUSED, naming the host and the setting to change", async () => {
    const response = await exports.default.fetch("http://evil.example.com/mcp", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(ping(1)),
    });
    expect(response.status).toBe(403);
    expect(await rpcError(response)).toMatchObject({
      code: -32000,
      message:
        "Forbidden: Host 'evil.example.com' is not one this server answers to (DNS-rebinding protection). Set MCP_ALLOWED_HOSTS to the names this server is reached by.",
      data: { error_code: "REBINDING_REFUSED" },
    });
  });

  it("answers GET with 405 METHOD_NOT_ALLOWED and Allow: POST, DELETE", async () => {
    const response = await exports.default.fetch(`${MCP_BASE}/mcp/web`, { headers: { accept: "text/event-stream" } });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST, DELETE");
    expect(await rpcError(response)).toEqual({
      code: -32000,
      message: "Method not allowed: this server has no standalone SSE stream; JSON-RPC goes over POST.",
      data: {
        error: "Method not allowed: this server has no standalone SSE stream; JSON-RPC goes over POST.",
        error_code: "METHOD_NOT_ALLOWED",
        suggestion: "Use POST or DELETE.",
      },
    });
  });

  it("refuses a body not sent as JSON with 415, in the /v1 words behind the reason phrase", async () => {
    const response = await mcpPost("/mcp", ping(1), { headers: { "content-type": "text/plain" } });
    expect(response.status).toBe(415);
    const error = await rpcError(response);
    expect(error).toMatchObject({
      code: -32000,
      message: "Unsupported Media Type: Content-Type must be application/json, got text/plain.",
      data: { error_code: "UNSUPPORTED_MEDIA_TYPE" },
    });
    expect(error.message).toBe(`Unsupported Media Type: ${error.data.error}`);
  });

  it("refuses a client that accepts neither JSON nor SSE with 406 NOT_ACCEPTABLE", async () => {
    const response = await mcpPost("/mcp", ping(1), { headers: { accept: "text/html" } });
    expect(response.status).toBe(406);
    expect(await rpcError(response)).toMatchObject({
      code: -32000,
      message: "Not Acceptable: the client must accept application/json and text/event-stream.",
      data: { error_code: "NOT_ACCEPTABLE" },
    });
  });

  it("refuses an unknown MCP-Protocol-Version with 400, listing the supported revisions", async () => {
    const response = await mcpPost("/mcp", ping(1), { headers: { "mcp-protocol-version": "2020-01-01" } });
    expect(response.status).toBe(400);
    expect(await rpcError(response)).toMatchObject({
      code: -32000,
      message: `Bad Request: unsupported MCP-Protocol-Version 2020-01-01 (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}).`,
      data: { error_code: "UNSUPPORTED_PROTOCOL_VERSION" },
    });
  });

  it("refuses a body over MAX_BODY_BYTES with 413 PAYLOAD_TOO_LARGE, naming the limit and its setting", async () => {
    const response = await mcpPost("/mcp", { ...ping(1), padding: "x".repeat(1_048_576) });
    expect(response.status).toBe(413);
    expect(await rpcError(response)).toMatchObject({
      code: -32000,
      message: "Payload Too Large: the body is over 1048576 bytes (MAX_BODY_BYTES).",
      data: { error_code: "PAYLOAD_TOO_LARGE" },
    });
  });

  it("refuses a batch over MAX_TOOL_CALLS with 413 and Invalid Request, counting the messages", async () => {
    const response = await mcpPost(
      "/mcp",
      Array.from({ length: 65 }, (_, i) => ping(i)),
      { headers: { "mcp-protocol-version": "2025-03-26" } },
    );
    expect(response.status).toBe(413);
    expect(await rpcError(response)).toMatchObject({
      code: -32600,
      message: "Payload Too Large: a batch may hold at most 64 messages (MAX_TOOL_CALLS); this one has 65. Send them in several requests.",
      data: { error_code: "TOO_MANY_CALLS", issues: [{ path: "tool_calls", message: "at most 64 items" }] },
    });
  });

  it("refuses a batch under a revision without batches with 400 and Invalid Request", async () => {
    const response = await mcpPost("/mcp", [ping("a")], { headers: { "mcp-protocol-version": "2025-06-18" } });
    expect(response.status).toBe(400);
    expect(await rpcError(response)).toMatchObject({
      code: -32600,
      message: "Invalid Request: JSON-RPC batches are not part of MCP 2025-06-18 (2025-06-18 removed them); send one message per POST.",
      data: { error_code: "BATCH_NOT_SUPPORTED" },
    });
  });

  it("answers an unknown toolset with 404 UNKNOWN_TOOLSET, pointing to the toolset list and to /mcp", async () => {
    const response = await mcpPost("/mcp/no-such-toolset", ping(1));
    expect(response.status).toBe(404);
    expect(await rpcError(response)).toMatchObject({
      code: -32000,
      message: "Unknown toolset: no-such-toolset. GET /v1/toolsets lists the toolsets; /mcp serves every tool this key may use.",
      data: { error_code: "UNKNOWN_TOOLSET", suggestion: "GET /v1/toolsets lists the toolsets." },
    });
  });

  it("answers a request without a key with 401 UNAUTHENTICATED in the /v1 words", async () => {
    const response = await mcpPost("/mcp", ping(1), { token: null });
    expect(response.status).toBe(401);
    // The /v1 challenge, plus where an OAuth client finds how to sign in (RFC 9728).
    expect(response.headers.get("www-authenticate")).toMatch(
      /^Bearer realm="toolgate", resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"$/,
    );
    const error = await rpcError(response);
    expect(error).toMatchObject({
      code: -32000,
      message: "This route needs an API key: send the header Authorization: Bearer <key>.",
      data: { error_code: "UNAUTHENTICATED" },
    });
  });
});
