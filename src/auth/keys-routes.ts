/**
 * The admin keys API: create, list, show and revoke API keys. Admin role only; mount it behind
 * `authenticate()`, which sets the principal that `requireRole` checks.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { failureResponse, type RequestIssue, validationHook } from "../http/request-failure.ts";
import { requestOrigin } from "../http/request-origin.ts";
import { errorResponses } from "../http/schemas.ts";
import { deleteConnectionsOf } from "../mcp/federation/connections/connection-store.ts";
import { endGrantTokens } from "../oauth/grant-tokens.ts";
import { kvToolsetLookup } from "../toolsets/custom-toolsets.ts";
import { resolveToolset } from "../toolsets/resolve.ts";
import type { AuthEnv } from "./auth-env.ts";
import { keyCache } from "./key-cache.ts";
import { createApiKey, getApiKey, listApiKeys, revokeApiKey, updateApiKeyAccess } from "./key-store.ts";
import { ApiKeySchema, CreatedKeySchema, CreateKeyBody, KeyIdParam, toWire, UpdateKeyBody } from "./keys-schemas.ts";
import { requireRole } from "./require-role.ts";

const createKey = createRoute({
  method: "post",
  path: "/v1/keys",
  summary: "Create an API key",
  description: "The response holds the key itself, once; only its SHA-256 digest is stored.",
  request: { body: { required: true, content: { "application/json": { schema: CreateKeyBody } } } },
  responses: {
    201: { description: "Created: the key and its record.", content: { "application/json": { schema: CreatedKeySchema } } },
    ...errorResponses(400, 403, 413, 415),
  },
});

const listKeys = createRoute({
  method: "get",
  path: "/v1/keys",
  summary: "List API keys, revoked ones included",
  responses: {
    200: {
      description: "Every key, oldest first; never a key or its digest.",
      content: { "application/json": { schema: z.object({ keys: z.array(ApiKeySchema) }) } },
    },
    ...errorResponses(403),
  },
});

const getKey = createRoute({
  method: "get",
  path: "/v1/keys/{id}",
  summary: "One API key's record",
  request: { params: KeyIdParam },
  responses: {
    200: { description: "The key's record.", content: { "application/json": { schema: ApiKeySchema } } },
    ...errorResponses(403, 404),
  },
});

const revokeKey = createRoute({
  method: "delete",
  path: "/v1/keys/{id}",
  summary: "Revoke an API key or OAuth grant",
  description:
    "Takes effect at once in the isolate that serves it and within 10 s everywhere else (lookups are cached that long). Revoking a revoked key is a no-op. Revoking an OAuth grant also deletes its access and refresh tokens.",
  request: { params: KeyIdParam },
  responses: {
    204: { description: "Revoked." },
    ...errorResponses(403, 404),
  },
});

const updateKey = createRoute({
  method: "patch",
  path: "/v1/keys/{id}",
  summary: "Change an API key's toolsets, policy or rate limit",
  description:
    "Only the fields sent change; null toolsets means every toolset, a null rate limit the default. Takes effect like a revocation: at once in this isolate, within 10 s elsewhere.",
  request: { params: KeyIdParam, body: { required: true, content: { "application/json": { schema: UpdateKeyBody } } } },
  responses: {
    200: { description: "The key's record as it is now.", content: { "application/json": { schema: ApiKeySchema } } },
    ...errorResponses(400, 403, 404, 413, 415),
  },
});

export const keysRoutes = new OpenAPIHono<AuthEnv>({
  // Same mapping as the app's own hook, so the sub-app answers alike wherever it is mounted.
  defaultHook: validationHook,
});

keysRoutes.use("/v1/keys", requireRole("admin"));
keysRoutes.use("/v1/keys/*", requireRole("admin"));

keysRoutes
  .openapi(createKey, async (c) => {
    const body = c.req.valid("json");
    const toolsets = body.toolsets ?? null;
    if (toolsets !== null) {
      const unknown = await unknownToolsets(toolsets, c.env.KV);
      if (unknown.length > 0) return failureResponse(c, { kind: "invalid_request", issues: unknown });
    }
    const { key, record } = await createApiKey(c.env.DB, {
      name: body.name,
      role: body.role,
      toolsets,
      policy: body.policy ?? { mode: "deny", patterns: [] },
      rateLimitPerMinute: body.rate_limit_per_minute ?? null,
      scopes: body.scopes ?? [],
      createdBy: c.get("principal").keyId,
    });
    return c.json({ ...toWire(record), key }, 201);
  })
  .openapi(listKeys, async (c) => c.json({ keys: (await listApiKeys(c.env.DB)).map(toWire) }, 200))
  .openapi(getKey, async (c) => {
    const { id } = c.req.valid("param");
    const record = await getApiKey(c.env.DB, id);
    if (record === undefined) return failureResponse(c, { kind: "unknown_api_key", id });
    return c.json(toWire(record), 200);
  })
  .openapi(updateKey, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    if (body.toolsets !== undefined && body.toolsets !== null) {
      const unknown = await unknownToolsets(body.toolsets, c.env.KV);
      if (unknown.length > 0) return failureResponse(c, { kind: "invalid_request", issues: unknown });
    }
    const record = await updateApiKeyAccess(c.env.DB, id, {
      ...(body.toolsets === undefined ? {} : { toolsets: body.toolsets }),
      ...(body.policy === undefined ? {} : { policy: body.policy }),
      ...(body.rate_limit_per_minute === undefined ? {} : { rateLimitPerMinute: body.rate_limit_per_minute }),
      ...(body.scopes === undefined ? {} : { scopes: body.scopes }),
    });
    if (record === undefined) return failureResponse(c, { kind: "unknown_api_key", id });
    // As for a revocation: this isolate's cached principal must not keep the old access.
    keyCache.forgetKeyId(id);
    return c.json(toWire(record), 200);
  })
  .openapi(revokeKey, async (c) => {
    const { id } = c.req.valid("param");
    const record = await revokeApiKey(c.env.DB, id);
    if (record === undefined) return failureResponse(c, { kind: "unknown_api_key", id });
    // Other isolates keep their entry until it expires (KEY_CACHE_TTL_MS); this one forgets now.
    keyCache.forgetKeyId(id);
    // Its own connections to per-user MCP servers end with it: every call reads them from D1.
    await deleteConnectionsOf(c.env.DB, id);
    // An OAuth grant's tokens go too (D1's revoked_at already refuses them everywhere).
    if (record.kind === "oauth_grant") await endGrantTokens(c.env, requestOrigin(c.req.url), id);
    return c.body(null, 204);
  });

/** Issues for toolsets that resolve to nothing (custom ones included, read from KV). */
async function unknownToolsets(names: readonly string[], kv: KVNamespace): Promise<RequestIssue[]> {
  const lookup = kvToolsetLookup(kv);
  const resolved = await Promise.all(names.map((name) => resolveToolset(name, lookup)));
  return names.flatMap((name, i) =>
    resolved[i] === undefined ? [{ path: `toolsets.${i}`, message: `unknown toolset '${name}'; GET /v1/toolsets lists them` }] : [],
  );
}
