/**
 * `GET /v1/memory`: the calling key's memory, as the `memory` tool keeps it, for clients that put
 * it in their prompts or show it to the user. An admin may read another key's with `?key_id=`.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { ADMIN_TOKEN_KEY_ID } from "../auth/admin-token.ts";
import { getApiKey } from "../auth/key-store.ts";
import { failureResponse, validationHook } from "../http/request-failure.ts";
import { errorResponses } from "../http/schemas.ts";
import type { AppEnv } from "../http/types.ts";
import { WEBHOOK_KEY_PREFIX } from "../webhooks/webhook-principal.ts";
import { memoryStub } from "./memory-stub.ts";
import { toMemoryWire } from "./memory-wire.ts";
import { MemorySchema } from "./memory-wire-schema.ts";

/** Callers that are not rows of api_keys but keep memory all the same (principal.ts, webhooks). */
const isBuiltInCaller = (keyId: string): boolean => keyId === ADMIN_TOKEN_KEY_ID || keyId.startsWith(WEBHOOK_KEY_PREFIX);

const getMemory = createRoute({
  method: "get",
  path: "/v1/memory",
  summary: "The calling key's memory (both stores of the memory tool)",
  description: "Entries of the `memory` and `user` stores with their character budgets. Admins may pass `key_id` to read another key's memory.",
  request: {
    query: z.object({
      key_id: z.string().min(1).max(256).optional().openapi({
        description: "Admins only: the id of the key whose memory to read (`admin-token`, `hook:<name>` or a key id from GET /v1/keys).",
        example: "3f2a1c0b-9e88-4f61-9d7e-0b6a1d2e5b8c",
      }),
    }),
  },
  responses: {
    200: { description: "The key's memory.", content: { "application/json": { schema: MemorySchema } } },
    ...errorResponses(400, 403, 404, 500),
  },
});

export const memoryRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(getMemory, async (c) => {
  const principal = c.get("principal");
  const { key_id: asked } = c.req.valid("query");
  const keyId = asked ?? principal.keyId;
  if (keyId !== principal.keyId) {
    if (principal.role !== "admin") return failureResponse(c, { kind: "forbidden", required: ["admin"], role: principal.role });
    // A typo must not read as "this key remembers nothing".
    if (!isBuiltInCaller(keyId) && (await getApiKey(c.env.DB, keyId)) === undefined) return failureResponse(c, { kind: "unknown_api_key", id: keyId });
  }
  return c.json(toMemoryWire(keyId, await memoryStub(c.env, keyId).read()), 200);
});
