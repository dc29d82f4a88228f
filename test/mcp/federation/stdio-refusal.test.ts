/**
 * A stdio MCP server's configuration (`command`/`args`, as desktop clients take it) is refused
 * with a message saying why a Worker cannot run it and how to put it behind an HTTP bridge, by
 * the admin API and by the MCP_SERVERS var alike.
 */
import { describe, expect, it } from "vitest";
import { parseMcpServersVar, STDIO_REFUSAL } from "../../../src/mcp/federation/server-config.ts";
import { api } from "../../support/api.ts";
import { json } from "../../support/json.ts";

const stdio = { name: "filesystem", command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] };

describe("a stdio MCP server configuration", () => {
  it("is refused by POST /v1/mcp-servers with INVALID_REQUEST naming command and the bridge", async () => {
    const response = await api("/v1/mcp-servers", { body: stdio });
    expect(response.status).toBe(400);
    const body = await json<{ error_code: string; issues: { path: string; message: string }[] }>(response);
    expect(body.error_code).toBe("INVALID_REQUEST");
    expect(body.issues).toContainEqual({ path: "command", message: STDIO_REFUSAL });
    expect(body.issues).toContainEqual({ path: "args", message: STDIO_REFUSAL });
    expect(STDIO_REFUSAL).toContain("cannot spawn processes");
    expect(STDIO_REFUSAL).toContain("--outputTransport streamableHttp");
  });

  it("is refused in MCP_SERVERS, naming the entry's index", () => {
    const parsed = parseMcpServersVar(JSON.stringify([stdio]));
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? "" : parsed.message).toContain(`[0.command] ${STDIO_REFUSAL}`);
  });

  it("still takes an HTTP server, the bridge's URL", () => {
    expect(parseMcpServersVar(JSON.stringify([{ name: "filesystem", url: "https://bridge.example.com/mcp" }]))).toMatchObject({
      ok: true,
      servers: [{ name: "filesystem" }],
    });
  });
});
