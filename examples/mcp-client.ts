/**
 * The MCP SDK's client against toolgate's /mcp (Streamable HTTP), with an API key: list the
 * tools the key may use, call one. Any MCP host (Claude Desktop, an IDE, an agent framework)
 * connects the same way.
 *
 *   TOOLGATE_KEY=tg_... node examples/mcp-client.ts
 *
 * Env: TOOLGATE_URL (default http://localhost:8787), TOOLGATE_KEY.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const env = process.env;
const key = env.TOOLGATE_KEY;
if (key === undefined || key === "") throw new Error("Set TOOLGATE_KEY (see the comment at the top of this file).");

const transport = new StreamableHTTPClientTransport(new URL("/mcp", env.TOOLGATE_URL ?? "http://localhost:8787"), {
  requestInit: { headers: { authorization: `Bearer ${key}` } },
});
const client = new Client({ name: "toolgate-example", version: "1.0.0" });
await client.connect(transport);

const { tools } = await client.listTools();
console.log(
  `${tools.length} tools, among them: ${tools
    .slice(0, 5)
    .map((tool) => tool.name)
    .join(", ")}`,
);
const result = await client.callTool({ name: "echo", arguments: { text: "hello", times: 2 } });
for (const block of result.content as { type: string; text?: string }[]) if (block.type === "text") console.log(block.text);
await client.close();
