/**
 * A small app for the auth tests: `authenticate()` on /v1/*, the keys API, and two probe routes
 * (who am I; an approver-only route), served with the real D1 and KV bindings.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { AuthEnv } from "../../src/auth/auth-env.ts";
import { authenticate, type AuthenticateOptions } from "../../src/auth/authenticate.ts";
import { keysRoutes } from "../../src/auth/keys-routes.ts";
import { requireRole } from "../../src/auth/require-role.ts";
import { failureResponse } from "../../src/http/request-failure.ts";
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

export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return (await response.json()) as T;
}

export interface CreatedKey {
  id: string;
  key: string;
  name: string;
  role: string;
  prefix: string;
  toolsets: string[] | null;
  policy: { mode: string; patterns: string[] };
  rate_limit_per_minute: number | null;
  created_at: string;
  created_by: string;
  revoked_at: string | null;
}

/** Creates a key through the API as the admin token, failing the test if that fails. */
export async function createKey(app: TestApp, body: Record<string, unknown>): Promise<CreatedKey> {
  const response = await call(app, "/v1/keys", { body });
  expect(response.status).toBe(201);
  return json<CreatedKey>(response);
}
