/**
 * A modern-era upstream (MCP 2026-07-28 only: the scripted /modern server, which refuses
 * initialize) federated through toolgate: registered, listed, and called by the official v2
 * client pinned to the 2025 handshake on /mcp, so the two eras meet in the gateway.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.ts";
import { testParts } from "../../support/dispatch.ts";
import { FAKE_MCP_HOST, TEST_ADMIN_TOKEN } from "../../support/test-env.ts";
import { addServer, fedEnv, runCall } from "./helpers.ts";

const app = createApp(testParts);

describe("a modern-era upstream behind toolgate", () => {
  it("is registered and called in its era, by a 2025-era client on /mcp and over /v1", async () => {
    const status = (await addServer({ name: "modern", url: `http://${FAKE_MCP_HOST}/modern` })) as { tools: { name: string }[]; last_error: unknown };
    expect(status.last_error).toBeNull();
    expect(status.tools.map((tool) => tool.name)).toEqual(["mcp__modern__whatarrived"]);

    const client = new Client({ name: "legacy-downstream", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } });
    const transport = new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
      fetch: (input, init) => Promise.resolve(app.request(String(input), init, fedEnv)),
      requestInit: { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } },
    });
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
    const result = await client.callTool({ name: "mcp__modern__whatarrived", arguments: { note: "through" } });
    const arrived = JSON.parse(String((result.content as { text: string }[])[0]?.text)) as Record<string, unknown>;
    // The call has a client to forward questions to (its event stream), so toolgate declares what it can forward.
    expect(arrived).toEqual({
      version: "2026-07-28",
      capabilities: { elicitation: { form: {}, url: {} }, sampling: {} },
      method: "tools/call",
      name: "whatarrived",
      arguments: { note: "through" },
    });
    await client.close();

    expect((await runCall("mcp__modern__whatarrived", { note: "v1" })).status).toBe("ok");
  });
});
