/** Drives the MCP door of the Worker under test, on a loopback URL so the Host check passes. */
import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";

export const MCP_BASE = "http://localhost";

export interface McpInit {
  /** The bearer token; null sends none. The admin token by default. */
  token?: string | null;
  headers?: Record<string, string>;
}

/** POSTs a JSON-RPC message (or batch, or raw text) to `path`. */
export function mcpPost(path: string, body: unknown, { token = TEST_ADMIN_TOKEN, headers = {} }: McpInit = {}): Promise<Response> {
  return exports.default.fetch(`${MCP_BASE}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

let nextId = 1;

/** One request; resolves with the parsed JSON-RPC response (plain JSON answers only). */
export async function rpc(
  path: string,
  method: string,
  params: Record<string, unknown> = {},
  init: McpInit = {},
): Promise<{ id: number; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } }> {
  const id = nextId++;
  const response = await mcpPost(path, { jsonrpc: "2.0", id, method, params }, init);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  const body = (await response.json()) as { id: number };
  expect(body.id).toBe(id);
  return body;
}

/** The JSON-RPC messages of an SSE body, in order. */
export async function sseMessages(response: Response): Promise<Record<string, unknown>[]> {
  expect(response.headers.get("content-type")).toBe("text/event-stream");
  const text = await response.text();
  return text
    .split("\n\n")
    .map((event) => event.split("\n").find((line) => line.startsWith("data: ")))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice("data: ".length)) as Record<string, unknown>);
}
