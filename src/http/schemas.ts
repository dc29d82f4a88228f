/**
 * Response schemas shared by the routes, so /openapi.json documents every body we send. The
 * tool-listing shapes are in tool-list-schemas.ts: this module is imported by the routes a cold
 * isolate's first request builds (issue 33), and only the lazily loaded tool routes list tools.
 */
import { z } from "@hono/zod-openapi";
import { once } from "../bundle/once.ts";

/**
 * The body of every request-level failure, built at first use: only OpenAPI entries read it, and
 * the eager routes' modules are evaluated by a cold isolate's first request (issue 33), which an
 * /mcp call makes without ever needing a route's documentation.
 */
export const errorBodySchema = once(() =>
  z
    .object({
      error: z.string().openapi({ example: "Unknown toolset: nope" }),
      error_code: z.string().openapi({ example: "UNKNOWN_TOOLSET" }),
      issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
      suggestion: z.string().optional(),
    })
    .openapi("RequestError"),
);

/** The body of every request-level failure (request-failure.ts types its responses with it). */
export type RequestErrorWire = z.infer<ReturnType<typeof errorBodySchema>>;

type ErrorContent = { "application/json": { schema: ReturnType<typeof errorBodySchema> } };

type ErrorStatus = 400 | 403 | 404 | 409 | 413 | 415 | 422 | 500 | 502 | 503;

const ERROR_TEXT: Record<401 | ErrorStatus, string> = {
  400: "The request is malformed or a field is invalid; `issues` names each field.",
  401: "No key, a malformed Authorization header, or an unknown or revoked key.",
  403: "The key's role may not use this route.",
  404: "The named resource does not exist.",
  409: "The request conflicts with an existing resource.",
  413: "The body or the batch is over its limit.",
  415: "The body is not sent as application/json.",
  422: "The request is well-formed but what it points at cannot be used (a spec that cannot be converted); the body says why.",
  500: "An internal error; the failure was logged.",
  502: "A remote server the route depends on could not be reached or did not answer correctly.",
  503: "A service the route needs is not configured or not available now; the body names what to set or when to retry.",
};

/**
 * The error responses of a /v1 route, for its OpenAPI entry: 401 always (every /v1 route needs
 * a key), plus the statuses given.
 */
export function errorResponses<const S extends readonly ErrorStatus[]>(...statuses: S) {
  const content: ErrorContent = { "application/json": { schema: errorBodySchema() } };
  return Object.fromEntries([401, ...statuses].map((s) => [s, { description: ERROR_TEXT[s as 401 | ErrorStatus], content }])) as {
    [K in 401 | S[number]]: { description: string; content: ErrorContent };
  };
}

/** Any JSON Schema object, for the entries that carry one; built at first use like errorBodySchema. */
export const jsonSchemaObject = once(() => z.record(z.string(), z.unknown()).openapi({ description: "A JSON Schema object." }));
