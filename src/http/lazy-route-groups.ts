/**
 * Serves the lazy route groups (route-groups.ts): a group's modules are imported at the first
 * request under one of its prefixes, not when the isolate starts, and its routes run in an app
 * of their own that shares the request's context with the main app's middleware.
 *
 * Hono builds its router once, at the first request, so routes cannot join the main app later.
 * Each group is its own small app instead, dispatched with the request itself (the body unread)
 * and the variables the main app's middleware set (the key's principal, the opened catalog);
 * what the group sets (the principal a page signs in, a failure's error code) goes back for the
 * request log. A request no route of the group matches goes on to the next group, then to the
 * main app's 404, exactly as a route the main app does not have.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { validationHook } from "./request-failure.ts";
import type { GroupContext, MountGroup, RouteGroup } from "./route-groups.ts";
import type { AppEnv } from "./types.ts";

type LazyGroup = Extract<RouteGroup, { load: unknown }>;

/** The main app's context of a request a group app is serving, keyed by the request. */
const OUTER_CONTEXT = new WeakMap<Request, Context<AppEnv>>();
/** Requests a group app had no route for. */
const UNMATCHED = new WeakSet<Request>();

/** Copies every context variable of `from` into `to`. */
function copyVariables(from: Context<AppEnv>, to: Context<AppEnv>): void {
  // Hono types `set` per variable name; here every name the app's middleware may set is copied as is.
  const set = to.set as (key: string, value: unknown) => void;
  for (const [key, value] of Object.entries(from.var)) set(key, value);
}

/** Whether `path` is `prefix` or below it (a whole segment: /v1/keys is not /v1/keysets). */
const under = (path: string, prefix: string): boolean => path === prefix || (path.startsWith(prefix) && path[prefix.length] === "/");

/** The request's ExecutionContext; app.request() in tests has none. */
function executionContextOf(c: Context<AppEnv>): ExecutionContext | undefined {
  try {
    return c.executionCtx as ExecutionContext;
  } catch {
    return undefined;
  }
}

/**
 * An app to mount groups on. A group's routes without a hook of their own answer a bad request
 * through the app they were first mounted on (@hono/zod-openapi looks up its parent's
 * defaultHook), so every such app has the main app's.
 */
export const groupParent = (): OpenAPIHono<AppEnv> => new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

/** The app a loaded group is served from. */
function groupApp(mount: MountGroup, context: GroupContext): OpenAPIHono<AppEnv> {
  const app = groupParent();
  app.use("*", async function sharedContext(c, next) {
    const outer = OUTER_CONTEXT.get(c.req.raw);
    if (outer !== undefined) copyVariables(outer, c);
    try {
      await next();
    } finally {
      if (outer !== undefined) copyVariables(c, outer);
    }
  });
  mount(app, context);
  app.notFound(function noRouteInGroup(c) {
    UNMATCHED.add(c.req.raw);
    return c.body(null, 404);
  });
  // A thrown error is the main app's to answer (its onError maps every failure to the wire).
  app.onError((error) => {
    throw error;
  });
  return app;
}

/** Every group, its modules imported: for the OpenAPI document, which lists every route. */
export async function mountAllGroups(app: OpenAPIHono<AppEnv>, groups: readonly RouteGroup[], context: GroupContext): Promise<void> {
  const mounts = await Promise.all(groups.map((group) => ("mount" in group ? group.mount : group.load())));
  for (const mount of mounts) mount(app, context);
}

/**
 * The middleware serving `groups`' lazy rows; mount it after the eager groups' routes, so a
 * request one of those answers never reaches it.
 */
export function lazyRouteGroups(groups: readonly RouteGroup[], context: GroupContext): MiddlewareHandler<AppEnv> {
  const lazy = groups.filter((group): group is LazyGroup => "load" in group);
  const apps = new Map<LazyGroup, Promise<OpenAPIHono<AppEnv>>>();
  const appOf = (group: LazyGroup): Promise<OpenAPIHono<AppEnv>> => {
    let app = apps.get(group);
    if (app === undefined) {
      app = group.load().then((mount) => groupApp(mount, context));
      // A failed import is tried again by the next request rather than remembered.
      app.catch(() => apps.delete(group));
      apps.set(group, app);
    }
    return app;
  };
  return async function lazyRouteGroup(c, next) {
    const path = c.req.path;
    for (const group of lazy) {
      if (!group.prefixes.some((prefix) => under(path, prefix))) continue;
      const app = await appOf(group);
      const request = c.req.raw;
      OUTER_CONTEXT.set(request, c);
      let response: Response;
      try {
        response = await app.fetch(request, c.env, executionContextOf(c));
      } finally {
        OUTER_CONTEXT.delete(request);
      }
      if (!UNMATCHED.has(request)) return response;
      UNMATCHED.delete(request);
    }
    await next();
  };
}
