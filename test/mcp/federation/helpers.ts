/**
 * Requests to the app built in the test's own module realm (`createApp(testParts).request` with the test
 * env), not through `exports.default`: the Worker behind it has module state of its own, so a
 * test that moves the clock (vi.setSystemTime) or reads the registry must talk to the instance it shares.
 * The route code, bindings and outbound network are the same real ones; the env adds
 * OUTBOUND_ALLOW for exactly the two loopback ports of server-everything.
 */
import { env } from "cloudflare:workers";
import { createApp } from "../../../src/http/app.ts";
import { testParts } from "../../support/dispatch.ts";
import { EVERYTHING_CONTROL_HOST, TEST_ADMIN_TOKEN, TEST_OUTBOUND_ALLOW } from "../../support/test-env.ts";
import { openaiCall } from "../../support/tool-calls.ts";

const app = createApp(testParts);

/** The test env with loopback opened for server-everything only. */
export const fedEnv = { ...env, OUTBOUND_ALLOW: TEST_OUTBOUND_ALLOW } as Env;

/** Like test/support/api.ts `api`, against the app in this realm. */
export async function fedApi(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; env?: Env } = {}): Promise<Response> {
  const { method = init.body === undefined ? "GET" : "POST", body } = init;
  const headers = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...init.headers };
  return app.request(`https://toolgate.test${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }, init.env ?? fedEnv);
}

export interface CallResult {
  status: string;
  error_code: string | null;
  attempts: number;
  message: { content: string };
}

/** Runs one tool call through POST /v1/tool-calls and returns its result. */
export async function runCall(name: string, args: unknown, options: { headers?: Record<string, string>; env?: Env } = {}): Promise<CallResult> {
  const res = await fedApi("/v1/tool-calls", { body: { tool_calls: [openaiCall("c1", name, args)] }, ...options });
  if (res.status !== 200) throw new Error(`POST /v1/tool-calls answered ${res.status}: ${await res.text()}`);
  const [result] = ((await res.json()) as { results: CallResult[] }).results;
  if (result === undefined) throw new Error("no result");
  return result;
}

/** Adds a server through the admin API; fails the test unless it is created. */
export async function addServer(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await fedApi("/v1/mcp-servers", { body });
  if (res.status !== 201) throw new Error(`POST /v1/mcp-servers answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** Names of the tools GET /v1/tools lists for a toolset (MCP shape). */
export async function listedTools(toolset: string): Promise<string[]> {
  const res = await fedApi(`/v1/tools?format=mcp&toolset=${toolset}`);
  return ((await res.json()) as { tools: { name: string }[] }).tools.map((tool) => tool.name);
}

/** Stops or restarts the real server-everything on `port` (the outbound stand-in does it, by PID). */
export const controlEverything = (action: "stop" | "start", port: number): Promise<Response> => fetch(`http://${EVERYTHING_CONTROL_HOST}/${action}/${port}`);
