/**
 * Bench-only route of the own-token scenario (scenarios/own-token.ts): one call's lookup of the
 * caller's own token at a `per_user` server, by step, so the scenario can tell what each costs.
 * `?step=none` answers the same bytes without looking anything up (the twin), `read` reads the
 * connection's row, `uncached` does a lookup that misses the isolate's cache: the row read, the
 * grant opened (AES-GCM under MCP_TOKEN_KEY), and the Authorization header made; `lookup` does
 * what a call does: the same lookup, served from the cache of opened grants
 * (connection-cache.ts) for all but one request in 10 s.
 */
/// <reference path="../../worker-configuration.d.ts" />
import type { Hono } from "hono";
import type { AppEnv } from "../../src/http/types.ts";
import { userAuth } from "../../src/mcp/federation/connections/connection-auth.ts";
import { connectionCache } from "../../src/mcp/federation/connections/connection-cache.ts";
import { readConnection, writeConnection } from "../../src/mcp/federation/connections/connection-store.ts";
import { OWN_TOKEN_PATH } from "./requests.ts";

const PRINCIPAL = "bench-own-token";
const SERVER = "bench_per_user";

/** A grant as a connection stores one: metadata and client included, so opening it costs what a real one does. */
const GRANT = {
  authorizationServerUrl: "https://auth.bench.example",
  metadata: {
    issuer: "https://auth.bench.example",
    authorization_endpoint: "https://auth.bench.example/authorize",
    token_endpoint: "https://auth.bench.example/token",
    response_types_supported: ["code"],
    code_challenge_methods_supported: ["S256"],
  },
  client: { client_id: "bench-client-0123456789abcdef", redirect_uris: ["https://toolgate.bench/mcp-oauth/callback"] },
  resource: "https://mcp.bench.example/mcp",
  scope: "read write",
  accessToken: "a".repeat(64),
  refreshToken: "r".repeat(64),
  // Far from expiry: the lookup never refreshes, as almost every call's does not.
  expiresAt: Date.UTC(2100, 0, 1),
};

let seeded: Promise<void> | undefined;
/** A call hands its own signal in (ctx.signal); reading the request's would cost the lookup an allocation calls do not make. */
const SIGNAL = new AbortController().signal;

export function ownTokenRoutes(app: Hono<AppEnv>): void {
  app.get(OWN_TOKEN_PATH, async function ownToken(c) {
    const env = c.env;
    const key = env.MCP_TOKEN_KEY;
    if (key === undefined) return c.text("MCP_TOKEN_KEY is not set in the bench Worker", 500);
    seeded ??= writeConnection(env.DB, key, PRINCIPAL, SERVER, GRANT, Date.now());
    await seeded;
    const step = c.req.query("step");
    if (step === "read") {
      if ((await readConnection(env.DB, PRINCIPAL, SERVER)) === undefined) return c.text("no connection", 500);
    } else if (step === "lookup" || step === "uncached") {
      if (step === "uncached") connectionCache.forget(PRINCIPAL, SERVER);
      const found = await userAuth(env, SERVER, PRINCIPAL, () => Date.now());
      if (!found.ok) return c.text(found.reason, 500);
      if ((await found.auth.authorization(SIGNAL)) === undefined) return c.text("no token", 500);
    }
    return c.text("ok");
  });
}
