/**
 * Health: a public liveness route, and per-tool availability with the reason and check time
 * (an admin can force a re-check, for example after fixing a tool's upstream).
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { requireRole } from "../../auth/require-role.ts";
import { type Availability, availability } from "../../registry/availability.ts";
import { registry } from "../../registry/registry.ts";
import type { ToolEntry } from "../../registry/types.ts";
import { accessOf } from "../access.ts";
import { failureResponse } from "../request-failure.ts";
import { errorResponses } from "../schemas.ts";
import type { AppEnv } from "../types.ts";

const ToolHealthSchema = z
  .object({
    name: z.string(),
    toolset: z.string(),
    available: z.boolean(),
    reason: z.string().nullable().openapi({ description: "Why it is unavailable: missing env vars, a false check, or the check's error." }),
    checked_at: z.string().nullable().openapi({ description: "When the deciding check ran; null when nothing needed checking." }),
    has_check: z.boolean(),
    requires_env: z.array(z.string()),
  })
  .openapi("ToolHealth");

const HealthListSchema = z.object({ tools: z.array(ToolHealthSchema) }).openapi("ToolHealthList");
const RecheckResultSchema = HealthListSchema.extend({ checked: z.number().int().openapi({ description: "How many tools had a check to run." }) }).openapi(
  "RecheckResult",
);

function toWire(entry: ToolEntry, state: Availability) {
  return {
    name: entry.name,
    toolset: entry.toolset,
    available: state.available,
    reason: state.reason ?? null,
    checked_at: state.checkedAt === undefined ? null : new Date(state.checkedAt).toISOString(),
    has_check: entry.check !== undefined,
    requires_env: [...entry.requiresEnv],
  };
}

const listHealth = createRoute({
  method: "get",
  path: "/v1/health/tools",
  summary: "Availability of every tool this key may use, with the reason and the check time",
  responses: {
    200: { description: "One row per tool the key may use, sorted by name.", content: { "application/json": { schema: HealthListSchema } } },
    ...errorResponses(),
  },
});

const recheck = createRoute({
  method: "post",
  path: "/v1/health/tools/recheck",
  summary: "Re-run availability checks now (admin)",
  description: "Ignores both cache levels; with `tools`, only those.",
  request: {
    body: { required: false, content: { "application/json": { schema: z.object({ tools: z.array(z.string()).max(1000).optional() }).openapi("Recheck") } } },
  },
  responses: {
    200: { description: "The fresh results.", content: { "application/json": { schema: RecheckResultSchema } } },
    ...errorResponses(400, 403),
  },
});

export const healthRoutes = new OpenAPIHono<AppEnv>();
// Re-checking calls tools' checks (and their upstreams) at will: admins only, wherever mounted.
healthRoutes.post("/v1/health/tools/recheck", requireRole("admin"));
healthRoutes
  .openapi(listHealth, async (c) => {
    // A key sees the health of the tools it may use, and nothing of the others.
    const access = await accessOf(c);
    const entries = registry.names().flatMap((name) => (access.decide(name).allowed ? (registry.get(name) ?? []) : []));
    const states = await Promise.all(entries.map((entry) => availability.of(entry, c.env)));
    return c.json({ tools: entries.map((entry, i) => toWire(entry, states[i] ?? { available: false })) }, 200);
  })
  .openapi(recheck, async (c) => {
    const body = c.req.valid("json");
    const names = body.tools ?? registry.names();
    const unknown = names.filter((name) => !registry.has(name));
    if (unknown.length > 0)
      return failureResponse(c, { kind: "invalid_request", issues: [{ path: "tools", message: `unknown tools: ${unknown.join(", ")}` }] });
    const entries = names.flatMap((name) => registry.get(name) ?? []);
    const states = await Promise.all(entries.map((entry) => availability.recheck(entry, c.env)));
    return c.json(
      { tools: entries.map((entry, i) => toWire(entry, states[i] ?? { available: false })), checked: entries.filter((e) => e.check !== undefined).length },
      200,
    );
  });
