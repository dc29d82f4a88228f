/**
 * Federation against the real `@modelcontextprotocol/server-everything` on loopback (started by
 * the test run's globalSetup), through the Worker's own routes: an admin adds the server, its
 * tools appear with their remote schemas, calls go through the whole pipeline, and a stopped
 * server's tools drop out of the definitions and come back when it restarts.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { api, json } from "../../http/helpers.ts";
import { EVERYTHING_CONTROL_HOST, EVERYTHING_PORT, EVERYTHING_SSE_PORT } from "../../support/test-env.ts";

const STREAMABLE_URL = `http://127.0.0.1:${EVERYTHING_PORT}/mcp`;
const SSE_URL = `http://127.0.0.1:${EVERYTHING_SSE_PORT}/sse`;

interface ToolList {
  tools: { name: string; description: string; inputSchema: Record<string, unknown> }[];
}
interface CallResults {
  results: { status: string; error_code: string | null; message: { content: string } }[];
}

const call = (id: string, name: string, args: unknown) => ({ id, type: "function", function: { name, arguments: JSON.stringify(args) } });

async function addServer(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await api("/v1/mcp-servers", { body });
  expect(res.status).toBe(201);
  return json(res);
}

async function runCall(name: string, args: unknown): Promise<CallResults["results"][number]> {
  const res = await api("/v1/tool-calls", { body: { tool_calls: [call("c1", name, args)] } });
  expect(res.status).toBe(200);
  const [result] = (await json<CallResults>(res)).results;
  if (result === undefined) throw new Error("no result");
  return result;
}

async function mcpToolNames(toolset: string): Promise<string[]> {
  const list = await json<ToolList>(await api(`/v1/tools?format=mcp&toolset=${toolset}`));
  return list.tools.map((tool) => tool.name);
}

const control = (action: "stop" | "start", port: number) => fetch(`http://${EVERYTHING_CONTROL_HOST}/${action}/${port}`);

afterEach(() => {
  vi.useRealTimers();
});

describe("server-everything over Streamable HTTP", () => {
  it("lists its tools as mcp__everything__* with the server's own input schemas", async () => {
    const status = await addServer({ name: "everything", url: STREAMABLE_URL });
    expect(status).toMatchObject({ name: "everything", source: "api", transport: "streamable-http", toolset: "mcp-everything", last_error: null });

    const list = await json<ToolList>(await api("/v1/tools?format=mcp&toolset=mcp-everything"));
    const echo = list.tools.find((tool) => tool.name === "mcp__everything__echo");
    expect(echo?.description).toBe("Echoes back the input string");
    expect(echo?.inputSchema).toMatchObject({ type: "object", properties: { message: { type: "string", description: "Message to echo" } }, required: ["message"] });
    expect(list.tools.map((tool) => tool.name)).toContain("mcp__everything__get-sum");
  });

  it("calls echo and get-sum through the pipeline, coercing numbers sent as strings", async () => {
    expect(await runCall("mcp__everything__echo", { message: "hi there" })).toMatchObject({ status: "ok", message: { content: "Echo: hi there" } });
    expect(await runCall("mcp__everything__get-sum", { a: "2", b: "40" })).toMatchObject({ status: "ok", message: { content: "The sum of 2 and 40 is 42." } });
  });

  it("validates arguments against the remote schema before calling", async () => {
    const result = await runCall("mcp__everything__echo", { message: { not: "a string" } });
    expect(result).toMatchObject({ status: "error", error_code: "INVALID_ARGUMENTS" });
    expect(JSON.parse(result.message.content)).toMatchObject({ issues: [{ path: "message" }] });
  });
});
