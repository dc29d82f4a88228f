/**
 * toolgate as an OpenAPI tool server, driven the way Open WebUI or a GPT Action drives one: load
 * the document with the key it was configured with, turn each operation with an id into a
 * function for the model, and when the model calls one, send its arguments as the body to the
 * server's URL and path, and hand the answer back.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createKey } from "../../support/create-key.ts";
import { type NamedOperation, type OpenApiDocument, operationsOf, resolvePointer, sampleOf } from "./openapi-support.ts";

interface ToolServer {
  doc: OpenApiDocument;
  functions: Map<string, NamedOperation>;
  call(name: string, args: unknown): Promise<{ status: number; contentType: string | null; body: unknown }>;
}

/** Connects as a tool server client does: one GET of the document, then one POST per call. */
async function connect(documentUrl: string, key: string): Promise<ToolServer> {
  const headers = { authorization: `Bearer ${key}` };
  const res = await exports.default.fetch(documentUrl, { headers });
  expect(res.status).toBe(200);
  const doc = (await res.json()) as OpenApiDocument;
  const base = doc.servers?.[0]?.url ?? new URL(documentUrl).origin;
  const functions = new Map(operationsOf(doc).map((op) => [op.operationId, op]));
  return {
    doc,
    functions,
    async call(name, args) {
      const op = functions.get(name);
      if (op === undefined) throw new Error(`no operation ${name}`);
      const answer = await exports.default.fetch(`${base}${op.path}`, {
        method: op.method.toUpperCase(),
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify(args),
      });
      const contentType = answer.headers.get("content-type");
      return { status: answer.status, contentType, body: contentType?.startsWith("application/json") ? await answer.json() : await answer.text() };
    },
  };
}

describe("toolgate as an OpenAPI tool server", () => {
  it("loads the document, picks an operation, calls it with a body made from its schema, and gets the result", async () => {
    const key = await createKey({ name: "ts-client", role: "agent", toolsets: ["core"] });
    const server = await connect("https://toolgate.test/openapi.json?only=tools", key.key);
    const echo = server.functions.get("echo");
    expect(echo?.description).toContain("Returns the text it is given");
    const args = sampleOf(echo?.schema, server.doc);
    // Defaults filled in, as a form would: text is the one required field.
    expect(args).toEqual({ text: "sample" });
    expect(await server.call("echo", args)).toEqual({ status: 200, contentType: "application/json", body: { text: "sample" } });
  });

  it("calls every operation it was given with a generated body, and each answers its result or a JSON envelope", async () => {
    const key = await createKey({ name: "ts-core", role: "agent", toolsets: ["core"] });
    const server = await connect("https://toolgate.test/openapi.json?only=tools", key.key);
    expect(server.functions.size).toBeGreaterThan(2);
    for (const [name, op] of server.functions) {
      const answer = await server.call(name, sampleOf(op.schema, server.doc));
      expect(answer.status, name).toBeLessThan(500);
      if (answer.status >= 300) expect(answer.body, name).toMatchObject({ error: expect.any(String), error_code: expect.any(String) });
    }
  });

  it("follows a request schema given by $ref to a component, as a client resolving the document does", async () => {
    const key = await createKey({ name: "ts-refs", role: "agent", toolsets: ["conformance"] });
    const server = await connect("https://toolgate.test/openapi.json?only=tools", key.key);
    const op = server.functions.get("json_schema_2020_12_tool");
    const resolved = resolvePointer(server.doc, (op?.schema as { $ref: string }).$ref);
    expect(resolved).toMatchObject({ type: "object", properties: { name: { type: "string" } } });
    expect(await server.call("json_schema_2020_12_tool", { name: "Ada", address: { city: "London" } })).toMatchObject({
      status: 200,
      body: { name: "Ada", city: "London" },
    });
  });
});
