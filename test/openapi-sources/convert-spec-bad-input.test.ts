/**
 * Specs no one should trust: broken and remote `$ref`s, recursive schemas, duplicate
 * operationIds, an operation with 500 parameters, `$ref`s that expand exponentially, names past
 * 64 characters. Each ends in a clear refusal of the spec or a listed skip of the operation,
 * never a throw, and the rest of the spec still converts.
 */
import { describe, expect, it } from "vitest";
import { MAX_ARGUMENT_VALUES } from "../../src/arguments/argument-shape.ts";
import { validatorFor } from "../../src/mcp/federation/json-schema-validator.ts";
import { convertSpec, MAX_SOURCE_OPERATIONS, MAX_SOURCE_SCHEMA_VALUES } from "../../src/openapi-sources/convert-spec.ts";
import type { ConvertedSpec } from "../../src/openapi-sources/operation.ts";
import { TOOL_NAME_PATTERN } from "../../src/registry/registry.ts";

type Doc = Record<string, unknown>;

const json = { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } };

function spec31(paths: Doc, schemas: Doc = {}): Doc {
  return { openapi: "3.1.0", info: { title: "t", version: "1" }, paths, components: { schemas } };
}

async function converted(doc: Doc): Promise<ConvertedSpec> {
  const result = await convertSpec(doc, { source: "api" });
  if (!result.ok) throw new Error(result.reason);
  return result.spec;
}

async function refusal(doc: Doc): Promise<string> {
  const result = await convertSpec(doc, { source: "api" });
  if (result.ok) throw new Error("expected a refusal");
  return result.reason;
}

const ok = { post: { operationId: "fine", requestBody: { content: { "application/json": { schema: { type: "object" } } } } } };

describe("convertSpec with broken or outside $refs", () => {
  it("skips the operation whose body reaches a $ref to nothing, naming the $ref, and keeps the others", async () => {
    const spec = await converted(
      spec31(
        { "/things": { post: { operationId: "makeThing", requestBody: { content: json } } }, "/ok": ok },
        { Thing: { $ref: "#/components/schemas/Gone" } },
      ),
    );
    expect(spec.operations.map((op) => op.name)).toEqual(["api__fine"]);
    expect(spec.problems).toEqual([
      "POST /things (makeThing): skipped: request body: $ref '#/components/schemas/Thing' does not resolve to anything in the spec",
    ]);
  });

  it("skips an operation whose parameter $ref points nowhere", async () => {
    const spec = await converted(
      spec31({ "/things": { get: { operationId: "listThings", parameters: [{ $ref: "#/components/parameters/page" }] } }, "/ok": ok }),
    );
    expect(spec.problems).toEqual(["GET /things (listThings): skipped: $ref '#/components/parameters/page' does not resolve to anything in the spec"]);
    expect(spec.operations).toHaveLength(1);
  });

  it("never fetches a remote or file $ref: the operation is skipped, naming it", async () => {
    const remote = "https://schemas.example/thing.json#/Thing";
    const spec = await converted(
      spec31({
        "/remote": { post: { operationId: "remote", requestBody: { content: { "application/json": { schema: { $ref: remote } } } } } },
        "/file": { get: { operationId: "file", parameters: [{ $ref: "./shared.yaml#/page" }] } },
        "/ok": ok,
      }),
    );
    expect(spec.operations.map((op) => op.name)).toEqual(["api__fine"]);
    expect(spec.problems).toEqual([
      `POST /remote (remote): skipped: request body: $ref '${remote}' points outside the spec; only $refs within it are followed (remote and file $refs are never fetched)`,
      "GET /file (file): skipped: $ref './shared.yaml#/page' points outside the spec; only $refs within it are followed (remote and file $refs are never fetched)",
    ]);
  });
});

describe("convertSpec with recursive schemas", () => {
  it("keeps a self-referencing tree as a local $defs reference that validates nested values", async () => {
    const spec = await converted(
      spec31(
        {
          "/nodes": {
            post: {
              operationId: "addNode",
              requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Node" } } } },
            },
          },
        },
        {
          Node: {
            type: "object",
            required: ["name"],
            properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/components/schemas/Node" } } },
          },
        },
      ),
    );
    const [op] = spec.operations;
    expect(op?.inputSchema.$defs).toEqual({
      Node: { type: "object", required: ["name"], properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } } },
    });
    const validator = validatorFor(op?.inputSchema ?? {});
    expect(validator.unsupported).toBeUndefined();
    expect(validator.schema.safeParse({ body: { name: "a", children: [{ name: "b", children: [{ name: "c" }] }] } }).success).toBe(true);
    expect(validator.schema.safeParse({ body: { name: "a", children: [{ name: "b", children: [{ nameless: true }] }] } }).success).toBe(false);
  });

  it("keeps mutually recursive schemas (A holds B, B holds A) exact", async () => {
    const spec = await converted(
      spec31(
        { "/a": { put: { operationId: "putA", requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/A" } } } } } } },
        {
          A: { type: "object", properties: { b: { $ref: "#/components/schemas/B" }, label: { type: "string" } } },
          B: { type: "object", properties: { a: { $ref: "#/components/schemas/A" }, count: { type: "integer" } } },
        },
      ),
    );
    const validator = validatorFor(spec.operations[0]?.inputSchema ?? {});
    expect(validator.unsupported).toBeUndefined();
    expect(validator.schema.safeParse({ body: { b: { a: { b: { count: 2 } } } } }).success).toBe(true);
    expect(validator.schema.safeParse({ body: { b: { a: { b: { count: "two" } } } } }).success).toBe(false);
    expect(spec.problems).toEqual([]);
  });
});

describe("convertSpec naming", () => {
  it("keeps both operations of a duplicated operationId, the second with a hashed suffix, and says so", async () => {
    const spec = await converted(
      spec31({
        "/pets": { get: { operationId: "listPets" } },
        "/animals": { get: { operationId: "listPets" } },
        "/dogs": { get: { operationId: "list.pets" } },
        "/cats": { get: { operationId: "list_pets" } },
      }),
    );
    const names = spec.operations.map((op) => op.name);
    expect(names[0]).toBe("api__listPets");
    expect(names[1]).toMatch(/^api__listPets_[0-9a-f]{8}$/);
    expect(names[2]).toBe("api__list_pets");
    expect(names[3]).toMatch(/^api__list_pets_[0-9a-f]{8}$/);
    expect(new Set(names).size).toBe(4);
    expect(spec.problems).toEqual([
      `GET /animals: named '${names[1]}', not 'api__listPets': its operationId 'listPets' gives the same name as another operation's`,
      `GET /cats: named '${names[3]}', not 'api__list_pets': its operationId 'list_pets' gives the same name as another operation's`,
    ]);
  });

  it("cuts names past 64 characters with a hash, so two long operationIds sharing a prefix stay apart", async () => {
    const long = "retrieveTheCompleteHistoryOfEveryInvoiceAdjustmentForACustomerAccount";
    const spec = await converted(spec31({ "/a": { get: { operationId: `${long}ByDate` } }, "/b": { get: { operationId: `${long}ByAmount` } } }));
    const names = spec.operations.map((op) => op.name);
    for (const name of names) {
      expect(name).toMatch(TOOL_NAME_PATTERN);
      expect(name).toHaveLength(64);
    }
    expect(names[0]).not.toBe(names[1]);
    expect(spec.problems).toEqual([]);
  });

  it("names an operation without operationId after its method and path", async () => {
    const spec = await converted(spec31({ "/users/{userId}/repos": { get: {}, delete: { operationId: "" } } }));
    expect(spec.operations.map((op) => op.name)).toEqual(["api__get_users_userId_repos", "api__delete_users_userId_repos"]);
    expect(spec.operations[0]?.operationId).toBeUndefined();
    expect(spec.operations[0]?.description).toBe("GET /users/{userId}/repos");
  });
});

describe("convertSpec arguments", () => {
  it("prefixes arguments whose names two locations share, and a parameter named body when there is a body", async () => {
    const spec = await converted(
      spec31({
        "/items/{id}": {
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          patch: {
            operationId: "patchItem",
            parameters: [
              { name: "id", in: "query", schema: { type: "string" } },
              { name: "body", in: "query", schema: { type: "string" } },
              { name: "X-Trace", in: "header", schema: { type: "string" } },
              { name: "Content-Type", in: "header", schema: { type: "string" } },
              { name: "page[size]", in: "query", schema: { type: "integer" } },
            ],
            requestBody: { content: { "application/json; charset=utf-8": { schema: { type: "object" } } } },
          },
        },
      }),
    );
    const [op] = spec.operations;
    expect(op?.parameters.map((p) => [p.in, p.name, p.arg])).toEqual([
      ["path", "id", "path_id"],
      ["query", "id", "query_id"],
      ["query", "body", "query_body"],
      ["header", "X-Trace", "X-Trace"],
      ["query", "page[size]", "page_size_"],
    ]);
    expect(Object.keys(op?.inputSchema.properties as object)).toEqual(["path_id", "query_id", "query_body", "X-Trace", "page_size_", "body"]);
    expect(op?.body).toEqual({ contentType: "application/json", required: false });
  });

  it("skips an operation with 500 parameters, and keeps one with 100", async () => {
    const params = (count: number) => Array.from({ length: count }, (_, i) => ({ name: `p${i}`, in: "query", schema: { type: "string" } }));
    const spec = await converted(
      spec31({ "/wide": { get: { operationId: "wide", parameters: params(500) } }, "/hundred": { get: { operationId: "hundred", parameters: params(100) } } }),
    );
    expect(spec.operations.map((op) => op.name)).toEqual(["api__hundred"]);
    expect(spec.problems).toEqual(["GET /wide (wide): skipped: it has 500 parameters; at most 100 are supported"]);
  });

  it("leaves out an optional body it cannot write and skips an operation that requires one", async () => {
    const spec = await converted(
      spec31({
        "/xml": { post: { operationId: "postXml", requestBody: { required: true, content: { "application/xml": { schema: { type: "object" } } } } } },
        "/maybe": { post: { operationId: "maybe", requestBody: { content: { "*/*": { schema: {} } } } } },
      }),
    );
    expect(spec.operations.map((op) => [op.name, op.body])).toEqual([["api__maybe", undefined]]);
    expect(spec.problems).toEqual([
      "POST /xml (postXml): skipped: its request body's media types (application/xml) are none that toolgate writes (application/json, application/x-www-form-urlencoded, multipart/form-data, text/plain)",
      "POST /maybe (maybe): optional request body left out: its request body's media types (*/*) are none that toolgate writes (application/json, application/x-www-form-urlencoded, multipart/form-data, text/plain)",
    ]);
  });
});

describe("convertSpec bounds its work", () => {
  it("skips an operation whose $refs double at each of 40 levels, after the value cap, not 2^40 values", async () => {
    const schemas: Doc = { L40: { type: "string" } };
    for (let level = 39; level >= 0; level--) {
      schemas[`L${level}`] = {
        type: "object",
        properties: { left: { $ref: `#/components/schemas/L${level + 1}` }, right: { $ref: `#/components/schemas/L${level + 1}` } },
      };
    }
    const spec = await converted(
      spec31(
        {
          "/bomb": { post: { operationId: "bomb", requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/L0" } } } } } },
          "/ok": ok,
        },
        schemas,
      ),
    );
    expect(spec.operations.map((op) => op.name)).toEqual(["api__fine"]);
    expect(spec.problems).toEqual([`POST /bomb (bomb): skipped: request body: its input schema nests deeper than 64 levels once its $refs are resolved`]);
  });

  it("skips an operation whose schema is wide rather than deep once expanded", async () => {
    const wide = { type: "object", properties: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}`, { type: "string" }])) };
    const schemas: Doc = {
      Wide: wide,
      Many: { type: "object", properties: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`w${i}`, { $ref: "#/components/schemas/Wide" }])) },
    };
    const spec = await converted(
      spec31(
        { "/many": { post: { operationId: "many", requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Many" } } } } } } },
        schemas,
      ),
    );
    expect(spec.operations).toEqual([]);
    expect(spec.problems).toEqual([
      `POST /many (many): skipped: request body: its input schema holds more than ${MAX_ARGUMENT_VALUES} values once its $refs are resolved`,
    ]);
  });

  it("stops adding operations once the source's schemas hold its budget of values, with one line for the rest", async () => {
    // Each body writes 18,302 values: 2 + 100 members, then 100 × (2 + 90 members + 90 types); under the per-operation cap.
    const wide = { type: "object", properties: Object.fromEntries(Array.from({ length: 90 }, (_, i) => [`f${i}`, { type: "string" }])) };
    const large = { type: "object", properties: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`w${i}`, { $ref: "#/components/schemas/Wide" }])) };
    const paths = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [
        `/large/${i}`,
        { put: { operationId: `large${i}`, requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Large" } } } } } },
      ]),
    );
    const spec = await converted(spec31(paths, { Wide: wide, Large: large }));
    const kept = spec.operations.length;
    // Operations are added while the total is still within the budget, so the last one added crosses it.
    expect(kept).toBe(Math.floor(MAX_SOURCE_SCHEMA_VALUES / 18_302) + 1);
    expect(spec.problems).toEqual([
      `${30 - kept} operations were left out: the ones before them already hold ${MAX_SOURCE_SCHEMA_VALUES} schema values, all a source may (narrow include)`,
    ]);
  });

  it("offers at most MAX_SOURCE_OPERATIONS operations, with one line for the rest", async () => {
    const paths = Object.fromEntries(Array.from({ length: MAX_SOURCE_OPERATIONS + 5 }, (_, i) => [`/op/${i}`, { get: { operationId: `op${i}` } }]));
    const spec = await converted(spec31(paths));
    expect(spec.operations).toHaveLength(MAX_SOURCE_OPERATIONS);
    expect(spec.problems).toEqual([
      `5 more operations were selected than the ${MAX_SOURCE_OPERATIONS} a source may offer; they were left out (narrow include)`,
    ]);
  });

  it("refuses a document nested deeper than any usable input schema", async () => {
    let deep: Doc = { type: "string" };
    for (let level = 0; level < 120; level++) deep = { type: "object", properties: { inner: deep } };
    expect(await refusal(spec31({ "/deep": { post: { requestBody: { content: { "application/json": { schema: deep } } } } } }))).toBe(
      "the spec nests deeper than 100 levels; no schema that deep can become a tool's input",
    );
  });

  it("refuses a chain of 400 schemas each holding the next, met at its head, instead of recursing 400 deep", async () => {
    const schemas: Doc = {};
    for (let i = 0; i < 400; i++) schemas[`S${i}`] = { type: "object", properties: { next: { $ref: `#/components/schemas/S${i + 1}` } } };
    schemas.S400 = { type: "string" };
    expect(
      await refusal(
        spec31({ "/chain": { post: { requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/S0" } } } } } } }, schemas),
      ),
    ).toBe("the spec's $refs nest deeper than 300 levels (a chain of schemas each holding the next); no input schema may nest past 64");
  });

  it("refuses a Swagger 2.0 spec the upgrader cannot read, with its reason", async () => {
    const reason = await refusal({
      swagger: "2.0",
      info: { title: "t", version: "1" },
      paths: { "/a": { get: { parameters: [{ name: "q", type: "string" }] } } },
    });
    expect(reason).toBe('the spec could not be read as OpenAPI 3.1: Parameter object must have an "in" property');
  });

  it("converts what it can of a malformed document without throwing", async () => {
    const spec = await converted({
      openapi: "3.0.3",
      info: "not an object",
      paths: {
        "/a": "not a path item",
        "/b": { get: "not an operation", post: { operationId: 7, parameters: [null] } },
        "/c": { get: { parameters: "none", tags: [1, "t"] } },
      },
    });
    expect(spec.title).toBe("api");
    expect(spec.servers).toEqual(["/"]);
    expect(spec.operations.map((op) => [op.name, op.tags])).toEqual([["api__get_c", ["t"]]]);
    expect(spec.problems).toEqual(["POST /b: skipped: a parameter is not an object"]);
  });
});

describe("convertSpec servers and odd keys", () => {
  it("leaves out a server whose variable has no default, and keeps a relative one", async () => {
    const spec = await converted({ ...spec31({}), servers: [{ url: "https://{region}.api.example" }, { url: "/v2" }] });
    expect(spec.servers).toEqual(["/v2"]);
    expect(spec.problems).toEqual(["server 'https://{region}.api.example' was left out: its variable 'region' has no default"]);
  });

  it("gives a Swagger 2.0 spec without schemes a scheme-relative server, resolved against the spec's own URL", async () => {
    const spec = await converted({ swagger: "2.0", info: { title: "t", version: "1" }, host: "api.example", basePath: "/v1", paths: {} });
    expect(spec.servers).toEqual(["//api.example/v1"]);
  });

  it("keeps a property named __proto__ a property", async () => {
    const doc = JSON.parse(
      '{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/p":{"post":{"operationId":"p","requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"__proto__":{"type":"string"}}}}}}}}}}',
    ) as Doc;
    const spec = await converted(doc);
    const body = (spec.operations[0]?.inputSchema.properties as Record<string, { properties: object }>).body;
    expect(Object.keys(body?.properties ?? {})).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(body?.properties)).toBe(Object.prototype);
  });
});
