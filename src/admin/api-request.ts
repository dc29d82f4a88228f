/**
 * Runs a JSON API route for the admin console as the signed-in person, so every change the
 * console makes passes the very route, schema and role check an API client's request does: the
 * console never holds a second copy of a rule. The routes are the API's own sub-apps, mounted
 * on an inner app that is never reachable from outside; the principal rides on the Request
 * object itself (a WeakMap), not in a header anyone could send.
 */
import { type Context, Hono } from "hono";
import { runsRoutes } from "../agent/runs-routes.ts";
import { auditRoutes } from "../audit/audit-routes.ts";
import type { AuthEnv } from "../auth/auth-env.ts";
import { keysRoutes } from "../auth/keys-routes.ts";
import type { Principal } from "../auth/principal.ts";
import { failureResponse } from "../http/request-failure.ts";
import { healthRoutes } from "../http/routes/health.ts";
import { toolsRoutes } from "../http/routes/tools.ts";
import { connectionsRoutes } from "../mcp/federation/connections/connections-routes.ts";
import { mcpServersRoutes } from "../mcp/federation/mcp-servers-routes.ts";
import { openApiSourcesRoutes } from "../openapi-sources/openapi-sources-routes.ts";
import { schedulesRoutes } from "../schedules/schedules-routes.ts";
import { webhooksRoutes } from "../webhooks/webhooks-routes.ts";

/** A JSON API answer: its status and parsed body (null for an empty one). */
export interface ApiAnswer {
  status: number;
  body: unknown;
}

const principals = new WeakMap<Request, Principal>();

// Built once per isolate: the routes are stateless and read everything from the request's env.
const inner = new Hono<AuthEnv>();
inner.use("*", async function asSignedIn(c, next) {
  const principal = principals.get(c.req.raw);
  // Unreachable: the only caller sets one. Failing closed keeps it so if that ever changes.
  if (principal === undefined) return c.json({ error: "no principal", error_code: "UNAUTHENTICATED" }, 401);
  c.set("principal", principal);
  return next();
});
inner.route("/", keysRoutes);
inner.route("/", auditRoutes);
inner.route("/", healthRoutes);
inner.route("/", toolsRoutes);
inner.route("/", runsRoutes);
inner.route("/", mcpServersRoutes);
inner.route("/", openApiSourcesRoutes);
inner.route("/", connectionsRoutes);
inner.route("/", webhooksRoutes);
inner.route("/", schedulesRoutes);
// A route that throws met a store that did not answer (D1, KV, a Durable Object): the API's own
// edge would say INTERNAL, which tells the person at the page nothing to do. The console says
// what could not be read and to retry; the error itself goes to the log, never to the page.
inner.onError(function apiRouteFailed(error, c) {
  console.error(`admin console: ${c.req.method} ${c.req.path} failed`, error);
  return failureResponse(c, {
    kind: "unavailable",
    message: `The API's ${c.req.method} ${c.req.path} failed: a store it needs (D1, KV or a Durable Object) did not answer. The failure was logged; try again in a moment.`,
    retryAfterSeconds: 30,
  });
});

/**
 * Sends `method path` with a JSON `body` to the API routes as `principal`.
 *
 * @example
 * ```ts
 * const answer = await apiRequest(c, principal, "DELETE", `/v1/keys/${id}`);
 * ```
 */
export async function apiRequest(
  c: Context,
  principal: Principal,
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
): Promise<ApiAnswer> {
  const response = await apiResponse(
    c,
    principal,
    method,
    path,
    body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } },
  );
  const text = await response.text();
  return { status: response.status, body: text === "" ? null : (JSON.parse(text) as unknown) };
}

/** The same, answering the route's own Response: for a stream (a run's events) the page passes on. */
export async function apiResponse(
  c: Context,
  principal: Principal,
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  init: { body?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const request = new Request(new URL(path, c.req.url), { method, ...init });
  principals.set(request, principal);
  return inner.fetch(request, c.env, executionContextOf(c));
}

function executionContextOf(c: Context): Context["executionCtx"] | undefined {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

/** The API's error text of a failed answer, with its field issues, for the page to show. */
export function apiErrorText(answer: ApiAnswer): string {
  const body = answer.body as { error?: unknown } | null;
  return typeof body?.error === "string" ? body.error : `The API answered ${answer.status}.`;
}
