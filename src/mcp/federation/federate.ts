/** Middleware that makes remote MCP tools part of the registry before a route looks at it. */
import type { MiddlewareHandler } from "hono";
import { federation } from "./federation.ts";

/**
 * Ensures every configured remote server's tools are registered in this isolate (cheap when
 * nothing is due). Mount it on every route that lists or dispatches tools.
 *
 * @example app.use("/v1/*", federate());
 */
export function federate<E extends { Bindings: Env } = { Bindings: Env }>(): MiddlewareHandler<E> {
  return async function federate(c, next) {
    await federation.ensure(c.env);
    return next();
  };
}
