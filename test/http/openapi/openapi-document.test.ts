/**
 * GET /openapi.json: the routes for everyone, and with a key one operation per tool that key
 * may use, each carrying the tool's own schema. Validity against the OpenAPI 3.1 schema is
 * checked from Node (test/scripts/openapi-docs.test.ts), where the validator can read its
 * meta-schemas; here, the document's content per key and that every `$ref` in it resolves.
 */

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ERROR_CODE_STATUS } from "../../../src/formats/outcome-wire.ts";
import { registry } from "../../../src/registry/registry.ts";
import { api } from "../../support/api.ts";
import { createKey } from "../../support/create-key.ts";
import { json } from "../../support/json.ts";
import { type OpenApiDocument, operationsOf, resolvePointer } from "./openapi-support.ts";

const TOOL_CALL = /^\/v1\/tools\/([A-Za-z0-9_-]+)\/call$/;

async function documentFor(key: string | null, query = ""): Promise<OpenApiDocument> {
  const res = await api(`/openapi.json${query}`, key === null ? { headers: { authorization: "" } } : { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return json<OpenApiDocument>(res);
}

async function toolNamesFor(key: string): Promise<string[]> {
  const list = await json<{ tools: { function: { name: string } }[] }>(await api("/v1/tools", { headers: { authorization: `Bearer ${key}` } }));
  return list.tools.map((tool) => tool.function.name).sort();
}

/** Every `$ref` string anywhere in `value`. */
function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === "$ref" && typeof item === "string") found.push(item);
      else refsIn(item, found);
    }
  }
  return found;
}

describe("GET /openapi.json", () => {
  it("without a key, documents the routes and the call route once, as a template", async () => {
    const doc = await documentFor(null);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: "https://toolgate.test" }]);
    expect(doc.paths["/v1/tools/{name}/call"]?.post).toMatchObject({ summary: "Call one tool" });
    expect(Object.keys(doc.paths).filter((path) => TOOL_CALL.test(path))).toEqual([]);
  });

  it("with a key, has one operation per tool it lists, named after the tool and carrying its own schema", async () => {
    const key = await createKey({ name: "oa-all", role: "agent" });
    const doc = await documentFor(key.key);
    const operations = operationsOf(doc);
    expect(operations.map((op) => op.operationId).sort()).toEqual(await toolNamesFor(key.key));
    const echo = operations.find((op) => op.operationId === "echo");
    const detail = await json<{ description: string; parameters: unknown }>(await api("/v1/tools/echo", { headers: { authorization: `Bearer ${key.key}` } }));
    expect(echo).toMatchObject({ path: "/v1/tools/echo/call", method: "post", description: detail.description, schema: detail.parameters });
    // The gateway's own routes are still there, without operation ids: tool servers skip them.
    expect(doc.paths["/v1/tool-calls"]?.post?.operationId).toBeUndefined();
  });

  it("lists only what the key may use: its toolsets and its policy narrow the operations", async () => {
    const key = await createKey({ name: "oa-narrow", role: "agent", toolsets: ["core"], policy: { mode: "deny", patterns: ["echo"] } });
    const names = operationsOf(await documentFor(key.key))
      .map((op) => op.operationId)
      .sort();
    expect(names).toEqual(await toolNamesFor(key.key));
    expect(names).not.toContain("echo");
    expect(names).not.toContain("write_file");
    expect(names).toContain("current_time");
  });

  it("refuses a key that is sent but wrong with 401, rather than answering the public document", async () => {
    const res = await api("/openapi.json", { headers: { authorization: "Bearer tg_not_a_key" } });
    expect(res.status).toBe(401);
    expect(await json(res)).toMatchObject({ error_code: "UNAUTHENTICATED" });
  });

  it("keeps only the tool operations with only=tools, and one toolset's with toolset=", async () => {
    const key = await createKey({ name: "oa-only", role: "agent" });
    const only = await documentFor(key.key, "?only=tools");
    expect(Object.keys(only.paths).every((path) => TOOL_CALL.test(path))).toBe(true);
    const core = await documentFor(key.key, "?only=tools&toolset=core");
    expect(operationsOf(core).map((op) => op.operationId)).toContain("echo");
    expect(operationsOf(core).map((op) => op.operationId)).not.toContain("read_file");
    const unknown = await api("/openapi.json?toolset=nope", { headers: { authorization: `Bearer ${key.key}` } });
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toMatchObject({ error_code: "UNKNOWN_TOOLSET" });
  });

  it("moves a schema with local $refs into a component, so its $refs resolve inside the document", async () => {
    const key = await createKey({ name: "oa-refs", role: "agent", toolsets: ["conformance"] });
    const doc = await documentFor(key.key);
    const op = operationsOf(doc).find((o) => o.operationId === "json_schema_2020_12_tool");
    expect(op?.schema).toEqual({ $ref: "#/components/schemas/tool.json_schema_2020_12_tool" });
    const schema = resolvePointer(doc, "#/components/schemas/tool.json_schema_2020_12_tool") as { properties: { address: { $ref: string } } };
    expect(schema.properties.address.$ref).toBe("#/components/schemas/tool.json_schema_2020_12_tool/$defs/address");
    expect(resolvePointer(doc, schema.properties.address.$ref)).toMatchObject({ type: "object", properties: { city: { type: "string" } } });
  });

  it("follows the catalog: a tool registered, changed or removed shows in the next document", async () => {
    const key = await createKey({ name: "oa-follow", role: "agent" });
    const schemaOf = async () => operationsOf(await documentFor(key.key, "?only=tools")).find((op) => op.operationId === "oa_follow")?.schema;
    expect(await schemaOf()).toBeUndefined();
    const register = (field: string) =>
      registry.register({ name: "oa_follow", toolset: "oa-follow", schema: z.object({ [field]: z.string() }), description: "Follows.", handler: () => "ok" });
    try {
      expect(register("first")).toMatchObject({ ok: true });
      expect(await schemaOf()).toMatchObject({ properties: { first: { type: "string" } } });
      expect(register("second")).toMatchObject({ ok: true });
      expect(await schemaOf()).toMatchObject({ properties: { second: { type: "string" } } });
    } finally {
      registry.deregister("oa_follow");
    }
    expect(await schemaOf()).toBeUndefined();
  });

  it("has no $ref that does not resolve", async () => {
    for (const doc of [
      await documentFor(null),
      await documentFor((await createKey({ name: "oa-all-refs", role: "agent", toolsets: ["all", "conformance"] })).key),
    ]) {
      const refs = refsIn(doc);
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) expect(resolvePointer(doc, ref), ref).toBeDefined();
    }
  });

  it("names the status of every failing error code in the failed call's response", async () => {
    const failed = (await documentFor(null)).components?.responses?.ToolCallFailed as { description: string };
    for (const [code, status] of Object.entries(ERROR_CODE_STATUS)) {
      if (status >= 400) expect(failed.description).toContain(`${status} ${code}`);
    }
  });
});
