/**
 * Gives every request its id (request-id.ts): as the current id (request-context.ts), which the
 * doors read once into their request scope and log lines read as they are written, including in
 * work the request leaves behind in waitUntil; and on the response, whatever route or failure
 * answered it.
 */
import type { MiddlewareHandler } from "hono";
import { withRequestId } from "./request-context.ts";
import { REQUEST_ID_HEADER, requestIdOf } from "./request-id.ts";

/**
 * The middleware; mount it first, on every path.
 *
 * @example app.use("*", requestId());
 */
export function requestId(): MiddlewareHandler {
  return async function requestIdMiddleware(c, next) {
    const id = requestIdOf(c.req.header(REQUEST_ID_HEADER));
    // Set before the handler so every response built through the context carries it, and again
    // after, for responses a handler built itself.
    c.header(REQUEST_ID_HEADER, id);
    await withRequestId(id, next);
    if (c.res.headers.get(REQUEST_ID_HEADER) !== id) {
      try {
        c.res.headers.set(REQUEST_ID_HEADER, id);
      } catch {
        // Immutable headers (a response passed through from fetch): copy it once.
        c.res = new Response(c.res.body, c.res);
        c.res.headers.set(REQUEST_ID_HEADER, id);
      }
    }
  };
}
