/**
 * The benchmark Worker: the real app, 500 synthetic tools in their own toolset, and "bare"
 * routes in the same Hono app that answer the same bytes as the measured routes without doing
 * their work. A bare route is the ceiling (routing, HTTP and body transfer only), so the
 * difference between a route and its bare twin is what the app itself costs.
 *
 * For the gateway layer's figures it also registers `bench_sleep` (sleep-tool.ts) and serves
 * the core pipeline without that layer at CORE_CALL_PATH (core-call.ts).
 *
 * Bare bodies are captured by replaying the real route once, on the first bare request (the
 * bench's warm-up), because module scope has no env and may not do I/O.
 */
// tsconfig.node.json checks everything under scripts/ with Node's types only; this file runs
// in workerd and needs the Worker globals (Env, ExportedHandler) too.
/// <reference path="../../worker-configuration.d.ts" />
import type { ExecutionContext } from "hono";
import "../../src/registry/tools.gen.ts";
import { createApp } from "../../src/http/app.ts";
import { registry } from "../../src/registry/registry.ts";
import { coreCall } from "./core-call.ts";
import { BARE_CALL_PATH, BARE_TOOLS_PATH, CORE_CALL_PATH, ECHO_CALL_BODY, TOOL_CALLS_PATH, TOOLS_PATH } from "./requests.ts";
import { registerSleepTool } from "./sleep-tool.ts";
import { registerSyntheticTools } from "./synthetic-tools.ts";

interface Captured {
  body: string;
  contentType: string;
}

registerSyntheticTools(registry);
registerSleepTool(registry);
const app = createApp();
const captured = new Map<string, Promise<Captured>>();

/** Runs the real route once per distinct request and keeps its answer; later calls reuse it. */
function capture(key: string, request: Request, env: Env, ctx: ExecutionContext): Promise<Captured> {
  let pending = captured.get(key);
  if (pending === undefined) {
    pending = (async () => {
      const response = await app.fetch(request, env, ctx);
      if (response.status !== 200) throw new Error(`bench: replaying ${request.url} answered ${response.status}: ${await response.text()}`);
      return { body: await response.text(), contentType: response.headers.get("content-type") ?? "application/json" };
    })();
    captured.set(key, pending);
  }
  return pending;
}

// The request body is left unread on purpose: reading and parsing it is part of the pipeline.
app.post(BARE_CALL_PATH, async function bareCall(c) {
  const url = new URL(TOOL_CALLS_PATH, c.req.url);
  const request = new Request(url, { method: "POST", headers: { "content-type": "application/json" }, body: ECHO_CALL_BODY });
  const { body, contentType } = await capture("call", request, c.env, c.executionCtx);
  return c.body(body, 200, { "content-type": contentType });
});

app.get(BARE_TOOLS_PATH, async function bareTools(c) {
  const url = new URL(c.req.url);
  url.pathname = TOOLS_PATH;
  const { body, contentType } = await capture(`tools${url.search}`, new Request(url), c.env, c.executionCtx);
  return c.body(body, 200, { "content-type": contentType });
});

app.post(CORE_CALL_PATH, coreCall);

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
