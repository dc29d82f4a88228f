/** Role checks for routes behind `authenticate()`. */
import type { MiddlewareHandler } from "hono";
import { failureResponse } from "../http/request-failure.ts";
import type { AuthEnv } from "./auth-env.ts";
import type { KeyScope, Role } from "./principal.ts";

/**
 * Lets a request through only when its principal has one of `roles`; otherwise 403 naming the
 * role needed. Without a principal (the route was mounted outside `authenticate()`) it answers
 * 401, so a wiring mistake fails closed.
 *
 * @example
 * ```ts
 * routes.use("/v1/keys/*", requireRole("admin"));
 * ```
 */
export function requireRole(...roles: [Role, ...Role[]]): MiddlewareHandler<AuthEnv> {
  return async function requireRole(c, next) {
    // Typed as always set behind authenticate(); checked anyway because mounting is the lead's code.
    const principal = c.get("principal") as AuthEnv["Variables"]["principal"] | undefined;
    if (principal === undefined) return failureResponse(c, { kind: "unauthenticated", reason: "missing" });
    if (!roles.includes(principal.role)) return failureResponse(c, { kind: "forbidden", required: roles, role: principal.role });
    return next();
  };
}

/**
 * Lets a request through when its principal has one of `roles` or holds `scope`; otherwise 403
 * naming both.
 *
 * @example
 * ```ts
 * routes.use("/metrics", requireRoleOrScope("metrics", "admin"));
 * ```
 */
export function requireRoleOrScope(scope: KeyScope, ...roles: [Role, ...Role[]]): MiddlewareHandler<AuthEnv> {
  return async function requireRoleOrScope(c, next) {
    const principal = c.get("principal") as AuthEnv["Variables"]["principal"] | undefined;
    if (principal === undefined) return failureResponse(c, { kind: "unauthenticated", reason: "missing" });
    if (!roles.includes(principal.role) && !principal.scopes.includes(scope)) {
      return failureResponse(c, { kind: "forbidden", required: roles, role: principal.role, scope });
    }
    return next();
  };
}
