/**
 * The admin API for runtime OpenAPI sources: add one from its spec's URL (`POST
 * /v1/openapi-sources`), read, replace and remove it, switch it on and off, fetch its spec again
 * (`.../refresh`, which pins nothing: a changed spec waits as `pending` with what moved) and
 * accept a pending spec (`.../accept`). Admin role only: a source's tools call out with the
 * deployment's secrets.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AuthEnv } from "../auth/auth-env.ts";
import { requireRole } from "../auth/require-role.ts";
import { failureResponse, validationHook } from "../http/request-failure.ts";
import { errorResponses } from "../http/schemas.ts";
import { deleteConnectionsTo } from "../mcp/federation/connections/connection-store.ts";
import { sourceUpstream } from "../mcp/federation/connections/upstream.ts";
import { registry } from "../registry/registry.ts";
import { importSpec } from "./import-spec.ts";
import { OpenApiSourceBody, OpenApiSourcePutBody, OpenApiSourceStatusSchema, toWireStatus } from "./openapi-sources-schemas.ts";
import type { ConvertedSpec } from "./operation.ts";
import { openApiSources } from "./runtime-sources.ts";
import { type OpenApiSourceConfig, sourceToolset } from "./source-config.ts";
import { deleteOperations, deleteSource, readOperations, readSource, type StoredOpenApiSource, writeOperations, writeSource } from "./source-store.ts";
import { specChanges } from "./spec-changes.ts";

const NameParam = z.object({ name: z.string().openapi({ example: "petstore" }) });
const statusContent = { "application/json": { schema: OpenApiSourceStatusSchema } };

const route = <const M extends "get" | "post" | "put" | "delete", const P extends string>(method: M, path: P) => ({ method, path });

const listSourcesRoute = createRoute({
  ...route("get", "/v1/openapi-sources"),
  summary: "Runtime OpenAPI sources and their tools",
  responses: {
    200: {
      description: "Every runtime source, sorted by name.",
      content: { "application/json": { schema: z.object({ sources: z.array(OpenApiSourceStatusSchema) }) } },
    },
    ...errorResponses(403, 503),
  },
});

const createSourceRoute = createRoute({
  ...route("post", "/v1/openapi-sources"),
  summary: "Add an OpenAPI source: each operation of its spec becomes a tool",
  description:
    "The spec is fetched from `spec.url` now, converted, and pinned by its SHA-256. Its operations join the registry as toolset `api-<name>`, named `<name>__<operation>`. Operations that cannot be served are listed in `pinned.problems`.",
  request: { body: { required: true, content: { "application/json": { schema: OpenApiSourceBody } } } },
  responses: { 201: { description: "Added.", content: statusContent }, ...errorResponses(400, 403, 409, 413, 415, 422, 502, 503) },
});

const getSourceRoute = createRoute({
  ...route("get", "/v1/openapi-sources/{name}"),
  summary: "One source: configuration, pinned spec, pending changes, tools and problems",
  request: { params: NameParam },
  responses: { 200: { description: "The source's status.", content: statusContent }, ...errorResponses(403, 404) },
});

const replaceSourceRoute = createRoute({
  ...route("put", "/v1/openapi-sources/{name}"),
  summary: "Replace a source's configuration; its spec is fetched and pinned again",
  request: { params: NameParam, body: { required: true, content: { "application/json": { schema: OpenApiSourcePutBody } } } },
  responses: { 200: { description: "Replaced.", content: statusContent }, ...errorResponses(400, 403, 404, 413, 415, 422, 502, 503) },
});

const deleteSourceRoute = createRoute({
  ...route("delete", "/v1/openapi-sources/{name}"),
  summary: "Remove a source; its tools leave the registry",
  request: { params: NameParam },
  responses: { 204: { description: "Removed." }, ...errorResponses(403, 404) },
});

const switchRoute = (state: "enable" | "disable") =>
  createRoute({
    ...route("post", `/v1/openapi-sources/{name}/${state}`),
    summary: state === "enable" ? "Serve the source's tools again" : "Take the source's tools out of the registry, keeping its configuration and pin",
    request: { params: NameParam },
    responses: { 200: { description: state === "enable" ? "Enabled." : "Disabled.", content: statusContent }, ...errorResponses(403, 404, 503) },
  });

const refreshSourceRoute = createRoute({
  ...route("post", "/v1/openapi-sources/{name}/refresh"),
  summary: "Fetch the spec again; a changed spec waits as `pending` until accepted",
  request: { params: NameParam },
  responses: { 200: { description: "Fetched; see `pending` for what moved.", content: statusContent }, ...errorResponses(403, 404, 422, 502, 503) },
});

const acceptSourceRoute = createRoute({
  ...route("post", "/v1/openapi-sources/{name}/accept"),
  summary: "Accept the pending spec: it becomes the pin and its operations the tools",
  request: { params: NameParam },
  responses: { 200: { description: "Accepted.", content: statusContent }, ...errorResponses(403, 404, 409, 503) },
});

export const openApiSourcesRoutes = new OpenAPIHono<AuthEnv>({ defaultHook: validationHook });

// Hono's "/v1/openapi-sources/*" matches "/v1/openapi-sources" too.
openApiSourcesRoutes.use("/v1/openapi-sources/*", requireRole("admin"));

openApiSourcesRoutes
  .openapi(listSourcesRoute, async (c) => {
    const states = await openApiSources.states(c.env);
    if (states === undefined) {
      return failureResponse(c, {
        kind: "unavailable",
        message: "The OpenAPI sources could not be read from KV just now, so the list would be out of date or empty; the failure was logged.",
        retryAfterSeconds: 30,
      });
    }
    return c.json({ sources: states.map(toWireStatus) }, 200);
  })
  .openapi(createSourceRoute, async (c) => {
    const config = c.req.valid("json");
    if ((await readSource(c.env.KV, config.name)) !== null || buildTimeToolset(config.name)) {
      return failureResponse(c, {
        kind: "conflict",
        message: `An OpenAPI source named '${config.name}' already exists; PUT /v1/openapi-sources/${config.name} replaces a runtime one, and apis/ files are changed by redeploying.`,
      });
    }
    const now = Date.now();
    const imported = await pin(c, config, undefined, now);
    if (!imported.ok) return refusal(c, config.name, imported);
    return answerStatus(c, config.name, 201);
  })
  .openapi(getSourceRoute, async (c) => {
    const { name } = c.req.valid("param");
    const state = await openApiSources.state(c.env, name);
    if (state === undefined) return failureResponse(c, { kind: "unknown_openapi_source", name });
    return c.json(toWireStatus(state), 200);
  })
  .openapi(replaceSourceRoute, async (c) => {
    const { name } = c.req.valid("param");
    const stored = await readSource(c.env.KV, name);
    if (stored === null) return failureResponse(c, { kind: "unknown_openapi_source", name });
    const imported = await pin(c, { ...c.req.valid("json"), name }, stored, Date.now());
    if (!imported.ok) return refusal(c, name, imported);
    return answerStatus(c, name, 200);
  })
  .openapi(deleteSourceRoute, async (c) => {
    const { name } = c.req.valid("param");
    const stored = await readSource(c.env.KV, name);
    if (stored === null) return failureResponse(c, { kind: "unknown_openapi_source", name });
    await deleteSource(c.env.KV, stored);
    // Everyone's own connections to it go with it: a source added again under the name starts afresh.
    await deleteConnectionsTo(c.env.DB, sourceUpstream(name));
    await openApiSources.reload(c.env, name, null);
    return c.body(null, 204);
  })
  .openapi(switchRoute("enable"), (c) => setEnabled(c, c.req.valid("param").name, true))
  .openapi(switchRoute("disable"), (c) => setEnabled(c, c.req.valid("param").name, false))
  .openapi(refreshSourceRoute, async (c) => {
    const { name } = c.req.valid("param");
    const stored = await readSource(c.env.KV, name);
    if (stored === null) return failureResponse(c, { kind: "unknown_openapi_source", name });
    const now = Date.now();
    const imported = await importSpec(c.env, stored.config, now);
    if (!imported.ok) return refusal(c, name, imported);
    const { summary, converted } = imported;
    let record: StoredOpenApiSource;
    if (summary.sha256 === stored.pinned.sha256) {
      // The pinned spec again: any pending one is moot.
      if (stored.pending !== undefined) await deleteOperations(c.env.KV, name, stored.pending.sha256);
      const { pending: _moot, ...rest } = stored;
      record = { ...rest, updatedAt: now };
    } else {
      const pinned = await readOperationsOrEmpty(c.env.KV, name, stored.pinned.sha256);
      await writeOperations(c.env.KV, name, summary.sha256, converted);
      if (stored.pending !== undefined && stored.pending.sha256 !== summary.sha256) await deleteOperations(c.env.KV, name, stored.pending.sha256);
      record = { ...stored, updatedAt: now, pending: { ...summary, changes: specChanges(pinned, converted) } };
    }
    await writeSource(c.env.KV, record);
    await openApiSources.reload(c.env, name, record);
    return answerStatus(c, name, 200);
  })
  .openapi(acceptSourceRoute, async (c) => {
    const { name } = c.req.valid("param");
    const stored = await readSource(c.env.KV, name);
    if (stored === null) return failureResponse(c, { kind: "unknown_openapi_source", name });
    if (stored.pending === undefined) {
      return failureResponse(c, { kind: "conflict", message: `OpenAPI source '${name}' has no pending spec to accept; POST .../refresh fetches it again.` });
    }
    const { pending, ...rest } = stored;
    const { changes: _changes, ...summary } = pending;
    const record: StoredOpenApiSource = { ...rest, pinned: summary, updatedAt: Date.now() };
    await writeSource(c.env.KV, record);
    await deleteOperations(c.env.KV, name, stored.pinned.sha256);
    await openApiSources.reload(c.env, name, record);
    return answerStatus(c, name, 200);
  });

type Refusal = { stage: "fetch" | "spec" | "base_url"; reason: string };
type PinOutcome = { ok: true } | ({ ok: false } & Refusal);

/** Fetches, converts and pins `config`'s spec as the source's tools: a new source, or a replaced configuration. */
async function pin(c: Context<AuthEnv>, config: OpenApiSourceConfig, stored: StoredOpenApiSource | undefined, now: number): Promise<PinOutcome> {
  const imported = await importSpec(c.env, config, now);
  if (!imported.ok) return imported;
  await writeOperations(c.env.KV, config.name, imported.summary.sha256, imported.converted);
  const record: StoredOpenApiSource = { config, createdAt: stored?.createdAt ?? now, updatedAt: now, pinned: imported.summary };
  await writeSource(c.env.KV, record);
  if (stored !== undefined) {
    const kept = new Set([imported.summary.sha256]);
    for (const sha of [stored.pinned.sha256, stored.pending?.sha256])
      if (sha !== undefined && !kept.has(sha)) await deleteOperations(c.env.KV, config.name, sha);
  }
  await openApiSources.reload(c.env, config.name, record);
  return { ok: true };
}

async function setEnabled(c: Context<AuthEnv>, name: string, enabled: boolean) {
  const stored = await readSource(c.env.KV, name);
  if (stored === null) return failureResponse(c, { kind: "unknown_openapi_source", name });
  const record: StoredOpenApiSource = { ...stored, config: { ...stored.config, enabled }, updatedAt: Date.now() };
  await writeSource(c.env.KV, record);
  await openApiSources.reload(c.env, name, record);
  return answerStatus(c, name, 200);
}

function refusal(c: Context<AuthEnv>, name: string, failed: Refusal) {
  if (failed.stage === "fetch") return failureResponse(c, { kind: "openapi_spec_unreachable", name, detail: failed.reason });
  return failureResponse(c, { kind: "openapi_spec_refused", name, stage: failed.stage, detail: failed.reason });
}

/** A toolset a build-time source (apis/) already holds: its tools are registered, and runtime state has no record of it. */
function buildTimeToolset(name: string): boolean {
  return registry.namesInToolset(sourceToolset(name)).length > 0;
}

async function readOperationsOrEmpty(kv: KVNamespace, name: string, sha: string): Promise<ConvertedSpec> {
  return (await readOperations(kv, name, sha)) ?? { specVersion: "", title: "", servers: [], operations: [], problems: [] };
}

/** The source's status after a write; 503 when it was stored but the sources could not be re-read just now. */
async function answerStatus<S extends 200 | 201>(c: Context<AuthEnv>, name: string, status: S) {
  const state = await openApiSources.state(c.env, name);
  if (state === undefined) {
    return failureResponse(c, {
      kind: "unavailable",
      message: `OpenAPI source '${name}' was saved, but the sources could not be re-read from KV just now; GET /v1/openapi-sources/${name} shows it once KV answers.`,
      retryAfterSeconds: 30,
    });
  }
  return c.json(toWireStatus(state), status);
}
