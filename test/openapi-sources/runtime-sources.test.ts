/**
 * Runtime OpenAPI sources through the real admin API, KV and registry: a spec published on the
 * test network (test/support/spec-host.ts) is added, listed as tools, refreshed (a changed spec
 * waits until accepted, with what moved), disabled, enabled and removed; every bad input is a
 * structured refusal.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.ts";
import { openApiSources } from "../../src/openapi-sources/runtime-sources.ts";
import { testParts } from "../support/dispatch.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";

const app = createApp(testParts);
const SPECS = "http://specs.upstream.test";

function api(path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  const method = init.method ?? (init.body === undefined ? "GET" : "POST");
  const headers = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(init.body === undefined ? {} : { "content-type": "application/json" }) };
  return Promise.resolve(
    app.request(`https://toolgate.test${path}`, { method, headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) }, env),
  );
}

async function publish(name: string, spec: unknown, type = "application/json"): Promise<void> {
  const res = await fetch(`${SPECS}/${name}`, {
    method: "PUT",
    headers: { "content-type": type },
    body: typeof spec === "string" ? spec : JSON.stringify(spec),
  });
  expect(res.status).toBe(204);
}

/** A small 3.0 spec of our own: two reads and a write, one shared parameter by $ref. */
function notesSpec(extra: Record<string, unknown> = {}) {
  return {
    openapi: "3.0.3",
    info: { title: "Notes", version: "1.0.0" },
    servers: [{ url: "https://notes.upstream.test/v1" }],
    components: { parameters: { NoteId: { name: "noteId", in: "path", required: true, schema: { type: "string" }, description: "The note's id." } } },
    paths: {
      "/notes": {
        get: {
          operationId: "listNotes",
          summary: "List notes",
          parameters: [{ name: "limit", in: "query", schema: { type: "integer", maximum: 100 } }],
          responses: { 200: { description: "ok" } },
        },
        post: {
          operationId: "createNote",
          summary: "Create a note",
          requestBody: {
            required: true,
            content: { "application/json": { schema: { type: "object", required: ["text"], properties: { text: { type: "string" } } } } },
          },
          responses: { 201: { description: "created" } },
        },
      },
      "/notes/{noteId}": {
        get: {
          operationId: "getNote",
          summary: "Get a note",
          parameters: [{ $ref: "#/components/parameters/NoteId" }],
          responses: { 200: { description: "ok" } },
        },
      },
      ...extra,
    },
  };
}

interface Status {
  name: string;
  toolset: string;
  enabled: boolean;
  tools: string[];
  pinned: { sha256: string; operations: number; base_url: string; problems: string[] };
  pending?: { sha256: string; changes: { added: string[]; removed: string[]; changed: string[] } };
}

async function toolsIn(toolset: string): Promise<string[]> {
  const res = await api(`/v1/tools?toolset=${toolset}&format=mcp`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { tools: { name: string }[] };
  return body.tools.map((tool) => tool.name).sort();
}

describe("runtime OpenAPI sources", () => {
  it("adds a source from its spec URL: each operation is a tool of the source's toolset", async () => {
    await publish("notes", notesSpec());
    const res = await api("/v1/openapi-sources", { body: { name: "notes", spec: { url: `${SPECS}/notes` } } });
    expect(res.status).toBe(201);
    const status = (await res.json()) as Status;
    expect(status.toolset).toBe("api-notes");
    expect(status.tools).toEqual(["notes__createNote", "notes__getNote", "notes__listNotes"]);
    expect(status.pinned.operations).toBe(3);
    expect(status.pinned.base_url).toBe("https://notes.upstream.test/v1");
    expect(status.pinned.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await toolsIn("api-notes")).toEqual(status.tools);

    const listed = (await (await api("/v1/openapi-sources")).json()) as { sources: Status[] };
    expect(listed.sources.map((s) => s.name)).toEqual(["notes"]);
    const again = await api("/v1/openapi-sources", { body: { name: "notes", spec: { url: `${SPECS}/notes` } } });
    expect(again.status).toBe(409);
  });

  it("serves a changed spec only once it is accepted, showing what moved", async () => {
    await publish("moving", notesSpec());
    expect((await api("/v1/openapi-sources", { body: { name: "moving", spec: { url: `${SPECS}/moving` } } })).status).toBe(201);
    const unchanged = (await (await api("/v1/openapi-sources/moving/refresh", { method: "POST" })).json()) as Status;
    expect(unchanged.pending).toBeUndefined();

    const changed = notesSpec({ "/tags": { get: { operationId: "listTags", responses: { 200: { description: "ok" } } } } });
    delete (changed.paths as Record<string, unknown>)["/notes/{noteId}"];
    changed.paths["/notes"].get.summary = "List every note";
    await publish("moving", changed);
    const refreshed = (await (await api("/v1/openapi-sources/moving/refresh", { method: "POST" })).json()) as Status;
    expect(refreshed.pending?.changes).toEqual({ added: ["moving__listTags"], removed: ["moving__getNote"], changed: ["moving__listNotes"] });
    // Until accepted, the pinned spec's tools are what is served.
    expect(await toolsIn("api-moving")).toEqual(["moving__createNote", "moving__getNote", "moving__listNotes"]);

    const accepted = (await (await api("/v1/openapi-sources/moving/accept", { method: "POST" })).json()) as Status;
    expect(accepted.pending).toBeUndefined();
    expect(accepted.pinned.sha256).toBe(refreshed.pending?.sha256);
    expect(await toolsIn("api-moving")).toEqual(["moving__createNote", "moving__listNotes", "moving__listTags"]);
    expect((await api("/v1/openapi-sources/moving/accept", { method: "POST" })).status).toBe(409);
  });

  it("disables, enables and removes a source, its tools following", async () => {
    await publish("toggled", notesSpec());
    expect((await api("/v1/openapi-sources", { body: { name: "toggled", spec: { url: `${SPECS}/toggled` } } })).status).toBe(201);
    const disabled = (await (await api("/v1/openapi-sources/toggled/disable", { method: "POST" })).json()) as Status;
    expect(disabled.enabled).toBe(false);
    expect(disabled.tools).toEqual([]);
    expect((await api("/v1/tools/toggled__listNotes")).status).toBe(404);
    const enabled = (await (await api("/v1/openapi-sources/toggled/enable", { method: "POST" })).json()) as Status;
    expect(enabled.tools).toHaveLength(3);
    expect((await api("/v1/openapi-sources/toggled", { method: "DELETE" })).status).toBe(204);
    expect((await api("/v1/openapi-sources/toggled")).status).toBe(404);
    expect((await api("/v1/tools/toggled__listNotes")).status).toBe(404);
    expect(await env.KV.list({ prefix: "openapi:" }).then((page) => page.keys.filter((key) => key.name.includes("toggled")))).toEqual([]);
  });

  it("refuses what cannot become a source, each with a structured error", async () => {
    await publish("not-openapi", { hello: "world" });
    await publish("relative", { ...notesSpec(), servers: [{ url: "/v1" }] });
    const cases: { body: Record<string, unknown>; status: number; code: string }[] = [
      { body: { name: "x1", spec: { url: `${SPECS}/not-openapi` } }, status: 422, code: "OPENAPI_SPEC_REFUSED" },
      { body: { name: "x2", spec: { url: `${SPECS}/missing` } }, status: 502, code: "OPENAPI_SPEC_UNREACHABLE" },
      { body: { name: "x3", spec: { url: "http://127.0.0.1:9/spec.json" } }, status: 422, code: "OPENAPI_SPEC_REFUSED" },
      { body: { name: "x4", spec: { file: "petstore.json" } }, status: 422, code: "OPENAPI_SPEC_REFUSED" },
      { body: { name: "x5", spec: { url: `${SPECS}/notes` }, base_url: "http://169.254.169.254/latest" }, status: 422, code: "OPENAPI_SPEC_REFUSED" },
      { body: { name: "Bad Name", spec: { url: `${SPECS}/notes` } }, status: 400, code: "INVALID_REQUEST" },
      {
        body: { name: "x6", spec: { url: `${SPECS}/notes` }, auth: { type: "bearer", token: { secret: "not a name" } } },
        status: 400,
        code: "INVALID_REQUEST",
      },
    ];
    await publish("notes", notesSpec());
    for (const { body, status, code } of cases) {
      const res = await api("/v1/openapi-sources", { body });
      expect({ name: body.name, status: res.status }).toEqual({ name: body.name, status });
      const error = (await res.json()) as { error_code: string; error: string };
      expect(error.error_code).toBe(code);
      expect(error.error.length).toBeGreaterThan(10);
    }
    // A spec whose only server is relative is resolved against where it was fetched.
    const relative = await api("/v1/openapi-sources", { body: { name: "relative", spec: { url: `${SPECS}/relative` } } });
    expect(relative.status).toBe(201);
    expect(((await relative.json()) as Status).pinned.base_url).toBe(`${SPECS}/v1`);
  });

  it("skips a stored record that is not JSON or not the shape written, serving the others", async () => {
    await publish("sound", notesSpec());
    expect((await api("/v1/openapi-sources", { body: { name: "sound", spec: { url: `${SPECS}/sound` } } })).status).toBe(201);
    await env.KV.put("openapi:source:garbled", "{not json");
    await env.KV.put("openapi:source:shapeless", JSON.stringify({ config: { name: "shapeless", spec: { url: `${SPECS}/sound` } } }));
    openApiSources.reset();
    const listed = await api("/v1/openapi-sources");
    expect(listed.status).toBe(200);
    const names = ((await listed.json()) as { sources: Status[] }).sources.map((source) => source.name);
    expect(names).toContain("sound");
    expect(names).not.toEqual(expect.arrayContaining(["garbled"]));
    expect(names).not.toEqual(expect.arrayContaining(["shapeless"]));
    expect((await api("/v1/openapi-sources/garbled")).status).toBe(404);
    expect(await toolsIn("api-sound")).toHaveLength(3);
  });

  it("is for admins only", async () => {
    const res = await Promise.resolve(app.request("https://toolgate.test/v1/openapi-sources", {}, env));
    expect(res.status).toBe(401);
  });
});
