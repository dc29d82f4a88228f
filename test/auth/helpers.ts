/**
 * A small app for the auth tests: `authenticate()` on /v1/*, the keys API, and two probe routes
 * (who am I; an approver-only route), served with the real D1 and KV bindings.
 */

import { env } from "cloudflare:workers";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AuthEnv } from "../../src/auth/auth-env.ts";
import { type AuthenticateOptions, authenticate } from "../../src/auth/authenticate.ts";
import { keysRoutes } from "../../src/auth/keys-routes.ts";
import { requireRole } from "../../src/auth/require-role.ts";
import { failureResponse } from "../../src/http/request-failure.ts";
import type { ApiSend } from "../support/api.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";

export type TestApp = OpenAPIHono<AuthEnv>;

export function authApp(options: AuthenticateOptions = {}): TestApp {
  const app = new OpenAPIHono<AuthEnv>();
  app.use("/v1/*", authenticate(options));
  app.route("/", keysRoutes);
  app.get("/v1/whoami", (c) => c.json(c.get("principal")));
  app.get("/v1/approvals", requireRole("approver", "admin"), (c) => c.json({ ok: true }));
  app.onError((error, c) => {
    console.error(error);
    return failureResponse(c, { kind: "internal" });
  });
  return app;
}

export interface CallInit {
  method?: string;
  body?: unknown;
  /** The bearer token; null sends no Authorization header. */
  token?: string | null;
  headers?: Record<string, string>;
}

/** Calls the app with the admin token unless told otherwise. */
export async function call(app: TestApp, path: string, { method, body, token = TEST_ADMIN_TOKEN, headers = {} }: CallInit = {}): Promise<Response> {
  const all: Record<string, string> = { ...headers };
  if (token !== null) all.authorization = `Bearer ${token}`;
  if (body !== undefined) all["content-type"] = "application/json";
  return app.request(
    path,
    { method: method ?? (body === undefined ? "GET" : "POST"), headers: all, ...(body === undefined ? {} : { body: JSON.stringify(body) }) },
    env,
  );
}

/** Sends API requests to `app`, for the shared helpers that take a sender (createKey). */
export const through =
  (app: TestApp): ApiSend =>
  (path, init) =>
    call(app, path, init);
