/**
 * `POST /v1/tools/{name}/call`: one tool as one HTTP operation, for clients that call tools
 * described by OpenAPI (Open WebUI's tool servers, GPT Actions, generated clients). The body is
 * the arguments object; the answer is the tool's result, or the envelope with a status that
 * follows its error code (formats/outcome-wire.ts). The call is a batch of one through
 * serveCalls, so policy, approvals, rate limits and the audit log treat it like any other.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { serveCalls } from "../../batch/serve-calls.ts";
import type { GatewayParts } from "../../compose.ts";
import { loadConfig } from "../../config/config.ts";
import { httpStatusOf } from "../../formats/outcome-wire.ts";
import { openScope } from "../../pipeline/request-scope.ts";
import type { CallOutcome } from "../../pipeline/types.ts";
import { keyScopeInput, SESSION_ID_PATTERN, SESSION_ID_RULE } from "../key-scope-input.ts";
import { CALL_ID_HEADER, documentToolCall, SESSION_HEADER } from "../openapi/tool-call-docs.ts";
import { failureResponse } from "../request-failure.ts";
import type { AppEnv } from "../types.ts";

const JSON_MEDIA_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

/**
 * Adds the route to `app` (itself, as meta.ts says why), running the call on the isolate's
 * parts; `documented: false` leaves its OpenAPI
 * entry and components out (route-groups.ts `documenting`), which only the document reads.
 */
export function mountCallToolRoutes(app: OpenAPIHono<AppEnv>, parts: GatewayParts, { documented }: { documented: boolean }): void {
  if (documented) documentToolCall(app);
  app.post("/v1/tools/:name/call", async function callTool(c) {
    const sessionId = c.req.header(SESSION_HEADER) ?? crypto.randomUUID();
    const callId = c.req.header(CALL_ID_HEADER) ?? `call_${crypto.randomUUID()}`;
    for (const [header, value] of [
      [SESSION_HEADER, sessionId],
      [CALL_ID_HEADER, callId],
    ] as const) {
      if (!SESSION_ID_PATTERN.test(value)) return failureResponse(c, { kind: "invalid_request", issues: [{ path: header, message: SESSION_ID_RULE }] });
    }
    const text = await c.req.text();
    const contentType = c.req.header("content-type");
    // An empty body is a call without arguments (clients send none for a tool with no parameters).
    if (text.trim() !== "" && (contentType === undefined || !JSON_MEDIA_TYPE.test(contentType)))
      return failureResponse(c, { kind: "unsupported_media_type", received: contentType });
    const config = loadConfig(c.env);
    const scope = await openScope(parts.pipeline, keyScopeInput(c, config, sessionId));
    // The text goes in as a model's arguments string: the pipeline's parse stage names a JSON
    // mistake's position, as it does for a batch.
    const call = { id: callId, name: c.req.param("name"), arguments: text.trim() === "" ? "{}" : text, format: "openai" as const };
    const [outcome] = (await serveCalls([call], scope, 1, parts.batch)) as [CallOutcome];
    c.header("X-Toolgate-Session", sessionId);
    c.header("X-Toolgate-Call-Id", callId);
    if (outcome.status === "ok")
      return c.body(outcome.content, 200, { "content-type": isJson(outcome.content) ? "application/json" : "text/plain; charset=utf-8" });
    const status = httpStatusOf(outcome);
    const retryAfterMs = outcome.envelope?.retry_after_ms;
    if (retryAfterMs !== undefined) c.header("Retry-After", String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
    return c.body(outcome.content, status, { "content-type": "application/json" });
  });
}

/** Whether a result's text is JSON, so it is answered as such (a tool may return JSON text itself). */
function isJson(text: string): boolean {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[" && first !== '"') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
