/**
 * `POST /__bench/core-call`: one call through the core pipeline without the gateway layer, the
 * reference for what runBatch and execute (deadline timer, breaker, retry loop, upstream fetch)
 * cost. It takes the body of POST /v1/tool-calls with one call, validates it with the same call
 * schemas, runs `dispatchCall` with `directExecutor` in place of `execute`, and answers the same
 * JSON shape. The route's body-size middleware (/v1/* only) is not applied: with a
 * Content-Length under the limit it only compares two numbers.
 */
// This module runs in workerd and names the Worker's `Env` (see scripts/bench/worker.ts).
/// <reference path="../../worker-configuration.d.ts" />
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { dispatchCall } from "../../src/dispatch/handle-function-call.ts";
import { runHandler } from "../../src/dispatch/run-handler.ts";
import { AnthropicToolUseSchema, normalizeCall, OpenAIToolCallSchema, toCallResult } from "../../src/formats/tool-calls.ts";
import type { execute } from "../../src/gateway/execute.ts";
import type { AppEnv } from "../../src/http/types.ts";
import { CORE_CALL_PATH } from "./requests.ts";

const CoreCallBody = z.object({
  tool_calls: z.array(z.discriminatedUnion("type", [OpenAIToolCallSchema, AnthropicToolUseSchema])).length(1),
  session_id: z.string().optional(),
});

/**
 * `execute` without its policies: exactly one plain attempt, with the request's signal (or one
 * that never fires) and the platform's fetch, as the core pipeline ran handlers before the
 * gateway layer.
 */
export const directExecutor: typeof execute = async function directExecutor(entry, args, base, parent) {
  const signal = parent ?? new AbortController().signal;
  const run = await runHandler(entry, args, { ...base, attempt: 1, signal, fetch: globalThis.fetch.bind(globalThis) });
  return { run, attempts: 1 };
};

/** The route handler; a body that is not one tool call answers 400 naming what it expects. */
export async function coreCall(c: Context<AppEnv>): Promise<Response> {
  const parsed = CoreCallBody.safeParse(await c.req.json());
  const incoming = parsed.success ? parsed.data.tool_calls[0] : undefined;
  if (!parsed.success || incoming === undefined) {
    return c.json({ error: `${CORE_CALL_PATH} takes the body of POST /v1/tool-calls with exactly one tool call`, issues: parsed.error?.issues ?? [] }, 400);
  }
  const sessionId = parsed.data.session_id ?? crypto.randomUUID();
  const call = normalizeCall(incoming);
  const ctx = c.executionCtx;
  const outcome = await dispatchCall(call.name, call.arguments, {
    callId: call.id,
    sessionId,
    env: c.env,
    signal: c.req.raw.signal,
    waitUntil: (promise) => ctx.waitUntil(promise),
    executor: directExecutor,
  });
  return c.json({ session_id: sessionId, results: [toCallResult(call, outcome)] }, 200);
}
