/** Toolsets: list, show, and create or delete custom ones (kept in KV). */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { ToolAccess } from "../../policy/tool-access.ts";
import { createCustomToolset, deleteCustomToolset, listToolsetNames } from "../../toolsets/custom-toolsets.ts";
import { isBuiltInToolset, toolsetInfo } from "../../toolsets/resolve.ts";
import type { ToolsetInfo } from "../../toolsets/types.ts";
import { accessOf, toolsetLookupOf } from "../access.ts";
import { failureResponse } from "../request-failure.ts";
import { errorResponses } from "../schemas.ts";
import { ToolsetSchema } from "../tool-list-schemas.ts";
import type { AppEnv } from "../types.ts";

const NameParam = z.object({ name: z.string().openapi({ example: "research" }) });

/** A toolset as this key may see it: tools it may not use are left out of both lists. */
const toWire = (info: ToolsetInfo, access: ToolAccess) => ({
  name: info.name,
  description: info.description,
  kind: info.kind,
  tools: info.tools.filter((tool) => access.decide(tool).allowed),
  includes: info.includes,
  resolved_tools: info.resolvedTools.filter((tool) => access.decide(tool).allowed),
  aliases: Object.fromEntries(Object.entries(info.aliases).filter(([tool]) => access.decide(tool).allowed)),
});

const listToolsets = createRoute({
  method: "get",
  path: "/v1/toolsets",
  summary: "Every toolset: static, registered and custom",
  responses: {
    200: { description: "The toolsets, sorted by name.", content: { "application/json": { schema: z.object({ toolsets: z.array(ToolsetSchema) }) } } },
    ...errorResponses(),
  },
});

const getToolset = createRoute({
  method: "get",
  path: "/v1/toolsets/{name}",
  summary: "One toolset: its direct tools, includes, and resolved tools",
  request: { params: NameParam },
  responses: {
    200: { description: "The toolset.", content: { "application/json": { schema: ToolsetSchema } } },
    ...errorResponses(404),
  },
});

const CreateToolsetBody = z
  .object({
    name: z
      .string()
      .regex(/^[a-zA-Z0-9_-]{1,64}$/, "must match ^[a-zA-Z0-9_-]{1,64}$")
      .openapi({ example: "my-research" }),
    description: z.string().max(1000).default(""),
    tools: z.array(z.string()).max(1000).default([]),
    includes: z.array(z.string()).max(100).default([]),
    aliases: z
      .record(z.string(), z.object({ name: z.string().optional(), description: z.string().max(1000).optional() }).strict())
      .refine((aliases) => Object.keys(aliases).length <= 1000, "at most 1000 aliases")
      .default({})
      .openapi({
        description:
          "How `/mcp/{name}` presents tools, keyed by the real tool name: another name, a description for this audience, or both. Policy, approvals and the audit's `tool` keep the real name.",
        example: { mcp__github__create_issue: { name: "create_issue", description: "File a bug in our tracker." } },
      }),
  })
  .strict()
  .openapi("CreateToolset");

const createToolset = createRoute({
  method: "post",
  path: "/v1/toolsets",
  summary: "Create a custom toolset",
  description:
    "Custom toolsets resolve like built-in ones. A built-in name is refused with 409, and so are aliases that would give two of the toolset's tools one name.",
  request: { body: { required: true, content: { "application/json": { schema: CreateToolsetBody } } } },
  responses: {
    201: { description: "Created.", content: { "application/json": { schema: ToolsetSchema } } },
    ...errorResponses(400, 403, 409, 413, 415, 500),
  },
});

const deleteToolset = createRoute({
  method: "delete",
  path: "/v1/toolsets/{name}",
  summary: "Delete a custom toolset",
  request: { params: NameParam },
  responses: {
    204: { description: "Deleted." },
    ...errorResponses(403, 404, 409),
  },
});

export const toolsetsRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listToolsets, async (c) => {
    const lookup = toolsetLookupOf(c);
    const access = await accessOf(c);
    const names = await listToolsetNames(c.env.KV);
    const infos = await Promise.all(names.map((name) => toolsetInfo(name, lookup)));
    return c.json({ toolsets: infos.filter((info) => info !== undefined).map((info) => toWire(info, access)) }, 200);
  })
  .openapi(getToolset, async (c) => {
    const { name } = c.req.valid("param");
    const info = await toolsetInfo(name, toolsetLookupOf(c));
    if (info === undefined) return failureResponse(c, { kind: "unknown_toolset", name });
    return c.json(toWire(info, await accessOf(c)), 200);
  })
  .openapi(createToolset, async (c) => {
    const body = c.req.valid("json");
    const created = await createCustomToolset(c.env.KV, body.name, body);
    if (!created.ok) {
      return failureResponse(
        c,
        created.kind === "conflict"
          ? { kind: "conflict", message: created.message }
          : { kind: "invalid_request", issues: [{ path: created.field, message: created.message }] },
      );
    }
    // Resolve through the record just written: KV reads may lag a write in other locations.
    const stored = toolsetLookupOf(c);
    const info = await toolsetInfo(body.name, (name) => (name === body.name ? Promise.resolve(created.record) : stored(name)));
    if (info === undefined) return failureResponse(c, { kind: "internal" });
    return c.json(toWire(info, await accessOf(c)), 201);
  })
  .openapi(deleteToolset, async (c) => {
    const { name } = c.req.valid("param");
    if (isBuiltInToolset(name)) return failureResponse(c, { kind: "conflict", message: `'${name}' is a built-in toolset and cannot be deleted.` });
    if (!(await deleteCustomToolset(c.env.KV, name))) return failureResponse(c, { kind: "unknown_toolset", name });
    return c.body(null, 204);
  });
