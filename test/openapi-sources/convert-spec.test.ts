/**
 * The public Petstore examples' structure in OpenAPI 3.0, 3.1 and Swagger 2.0, converted: names,
 * servers, where each argument goes and how it is written, bodies by media type, and schemas
 * that zod's JSON Schema importer (the one that validates these tools' arguments) accepts.
 */
import { describe, expect, it } from "vitest";
import { validatorFor } from "../../src/mcp/federation/json-schema-validator.ts";
import { convertSpec } from "../../src/openapi-sources/convert-spec.ts";
import { loadSpec } from "../../src/openapi-sources/load-spec.ts";
import type { ConvertedSpec, OpenApiOperation } from "../../src/openapi-sources/operation.ts";
import petstore20 from "../fixtures/openapi/petstore-2.0.json?raw";
import petstore30 from "../fixtures/openapi/petstore-3.0.yaml?raw";
import petstore31 from "../fixtures/openapi/petstore-3.1.yaml?raw";

async function convert(text: string, include?: string[], exclude?: string[]): Promise<ConvertedSpec> {
  const loaded = await loadSpec(text);
  if (!loaded.ok) throw new Error(loaded.reason);
  const converted = await convertSpec(loaded.doc, { source: "petstore", include, exclude });
  if (!converted.ok) throw new Error(converted.reason);
  return converted.spec;
}

function operation(spec: ConvertedSpec, operationId: string): OpenApiOperation {
  const found = spec.operations.find((candidate) => candidate.operationId === operationId);
  if (found === undefined) throw new Error(`no operation ${operationId}`);
  return found;
}

function accepts(op: OpenApiOperation, args: unknown): boolean {
  const validator = validatorFor(op.inputSchema);
  expect(validator.unsupported).toBeUndefined();
  return validator.schema.safeParse(args).success;
}

describe("convertSpec on the Petstore in OpenAPI 3.0", () => {
  it("names each operation after its operationId, sanitised, and substitutes server variables", async () => {
    const spec = await convert(petstore30);
    expect(spec.specVersion).toBe("3.0.3");
    expect(spec.title).toBe("Swagger Petstore");
    expect(spec.servers).toEqual(["https://api.petstore.example/v1"]);
    expect(spec.operations.map((op) => op.name)).toEqual(["petstore__findPets", "petstore__addPet", "petstore__find_pet_by_id", "petstore__deletePet"]);
    expect(spec.problems).toEqual([]);
  });

  it("keeps a query array's style and each parameter's description, format and bounds", async () => {
    const findPets = operation(await convert(petstore30), "findPets");
    expect(findPets.parameters).toEqual([
      { name: "tags", arg: "tags", in: "query", required: false, style: "form", explode: true, allowReserved: false },
      { name: "limit", arg: "limit", in: "query", required: false, style: "form", explode: true, allowReserved: false },
    ]);
    expect(findPets.inputSchema.properties).toEqual({
      tags: { type: "array", items: { type: "string" }, description: "tags to filter by" },
      limit: { type: "integer", format: "int32", minimum: 1, maximum: 100, description: "maximum number of results to return" },
    });
    expect(accepts(findPets, { tags: ["dog"], limit: 10 })).toBe(true);
    expect(accepts(findPets, { limit: 1000 })).toBe(false);
  });

  it("inherits path-level parameters, required in the path, written simple and unexploded", async () => {
    const deletePet = operation(await convert(petstore30), "deletePet");
    expect(deletePet.parameters).toEqual([{ name: "id", arg: "id", in: "path", required: true, style: "simple", explode: false, allowReserved: false }]);
    expect(deletePet.inputSchema.required).toEqual(["id"]);
    expect(deletePet.tags).toEqual(["pets", "admin"]);
  });

  it("resolves an allOf body's $refs and turns 3.0's nullable into a JSON Schema type list", async () => {
    const addPet = operation(await convert(petstore30), "addPet");
    expect(addPet.body).toEqual({ contentType: "application/json", required: true });
    expect(addPet.description).toBe("Add a pet\n\nCreates a new pet in the store. Duplicates are allowed.");
    expect(addPet.inputSchema).toEqual({
      type: "object",
      properties: {
        body: {
          type: "object",
          required: ["name"],
          properties: {
            name: { type: "string", description: "The pet's name" },
            tag: { type: ["string", "null"], description: "A free-form label, such as its breed" },
          },
          description: "Pet to add to the store",
        },
      },
      additionalProperties: false,
      required: ["body"],
    });
    expect(accepts(addPet, { body: { name: "Rex", tag: null } })).toBe(true);
    expect(accepts(addPet, { body: { tag: "dog" } })).toBe(false);
  });
});

describe("convertSpec on the Petstore in OpenAPI 3.1", () => {
  it("converts every operation but the binary upload, which is a listed skip", async () => {
    const spec = await convert(petstore31);
    expect(spec.servers).toEqual(["/api/v3"]);
    expect(spec.operations).toHaveLength(14);
    expect(spec.problems).toEqual([
      "POST /pet/{petId}/uploadImage (uploadFile): skipped: its request body's media types (application/octet-stream) are none that toolgate writes (application/json, application/x-www-form-urlencoded, multipart/form-data, text/plain)",
    ]);
  });

  it("prefers JSON among a body's media types and leaves out read-only properties", async () => {
    const updatePet = operation(await convert(petstore31), "updatePet");
    expect(updatePet.body).toEqual({ contentType: "application/json", required: true });
    const body = (updatePet.inputSchema.properties as Record<string, Record<string, unknown>>).body;
    expect(Object.keys(body?.properties as object)).toEqual(["name", "category", "photoUrls", "tags", "status"]);
    expect(accepts(updatePet, { body: { name: "doggie", photoUrls: [], status: "sold" } })).toBe(true);
    expect(accepts(updatePet, { body: { name: "doggie", photoUrls: [], status: "lost" } })).toBe(false);
  });

  it("keeps a query parameter's enum and default, and a header parameter simple", async () => {
    const spec = await convert(petstore31);
    expect(operation(spec, "findPetsByStatus").inputSchema.properties).toEqual({
      status: {
        type: "string",
        default: "available",
        enum: ["available", "pending", "sold"],
        description: "Status values that need to be considered for filter",
      },
    });
    expect(operation(spec, "findPetsByTags").parameters[0]).toMatchObject({ style: "form", explode: false });
    expect(operation(spec, "deletePet").parameters).toEqual([
      { name: "api_key", arg: "api_key", in: "header", required: false, style: "simple", explode: false, allowReserved: false },
      { name: "petId", arg: "petId", in: "path", required: true, style: "simple", explode: false, allowReserved: false },
    ]);
  });

  it("does not turn webhooks into tools: they are calls the API makes, not ones it takes", async () => {
    const spec = await convert(petstore31);
    expect(JSON.stringify(spec.operations)).not.toContain("Information about a new pet in the system");
  });
});

describe("convertSpec on the Petstore in Swagger 2.0", () => {
  it("builds servers from host, basePath and schemes, in the spec's order", async () => {
    const spec = await convert(petstore20);
    expect(spec.specVersion).toBe("2.0");
    expect(spec.servers).toEqual(["https://petstore.swagger.io/v2", "http://petstore.swagger.io/v2"]);
    expect(spec.operations).toHaveLength(16);
    expect(spec.problems).toEqual([]);
  });

  it("maps collectionFormat multi to form exploded and csv to form unexploded", async () => {
    const spec = await convert(petstore20);
    expect(operation(spec, "findPetsByStatus").parameters[0]).toMatchObject({ in: "query", style: "form", explode: true });
    expect(operation(spec, "findPetsByStatus").inputSchema.properties).toMatchObject({
      status: { type: "array", items: { type: "string", enum: ["available", "pending", "sold"], default: "available" } },
    });
    expect(operation(spec, "findPetsByTags").parameters[0]).toMatchObject({ in: "query", style: "form", explode: false });
    expect(operation(spec, "findPetsByTags").description).toBe(
      "Finds Pets by tags\n\nMultiple tags can be provided with comma separated strings. Use tag1, tag2, tag3 for testing.\n\nDeprecated.",
    );
  });

  it("turns a body parameter into `body` and formData parameters into a form or multipart body", async () => {
    const spec = await convert(petstore20);
    expect(operation(spec, "addPet").body).toEqual({ contentType: "application/json", required: true });
    const form = operation(spec, "updatePetWithForm");
    expect(form.body).toEqual({ contentType: "application/x-www-form-urlencoded", required: false });
    expect(form.inputSchema.properties).toMatchObject({ body: { type: "object", properties: { name: { type: "string" }, status: { type: "string" } } } });
    const upload = operation(spec, "uploadFile");
    expect(upload.body).toEqual({ contentType: "multipart/form-data", required: false });
    expect(upload.inputSchema.properties).toMatchObject({
      body: { properties: { file: { contentMediaType: "application/octet-stream", description: "file to upload" } } },
    });
  });

  it("keeps an integer path parameter's bounds", async () => {
    const getOrder = operation(await convert(petstore20), "getOrderById");
    expect(getOrder.inputSchema.properties).toEqual({
      orderId: { type: "integer", maximum: 10, minimum: 1, format: "int64", description: "ID of pet that needs to be fetched" },
    });
    expect(accepts(getOrder, { orderId: 3 })).toBe(true);
    expect(accepts(getOrder, { orderId: 11 })).toBe(false);
  });

  it("leaves the caller's document as it was", async () => {
    const loaded = await loadSpec(petstore20);
    if (!loaded.ok) throw new Error(loaded.reason);
    const before = JSON.stringify(loaded.doc);
    await convertSpec(loaded.doc, { source: "petstore" });
    expect(JSON.stringify(loaded.doc)).toBe(before);
  });
});

describe("convertSpec's operation selection", () => {
  it("includes by tag, then excludes by operationId glob", async () => {
    const spec = await convert(petstore20, ["tag:store"], ["delete*"]);
    expect(spec.operations.map((op) => op.operationId)).toEqual(["getInventory", "placeOrder", "getOrderById"]);
  });

  it("selects by method and path glob, or by path alone", async () => {
    expect((await convert(petstore20, ["path:GET /pet/*"])).operations.map((op) => op.operationId)).toEqual([
      "findPetsByStatus",
      "findPetsByTags",
      "getPetById",
    ]);
    expect((await convert(petstore20, ["path:/user/*"])).operations.map((op) => op.operationId)).toEqual([
      "createUsersWithListInput",
      "loginUser",
      "getUserByName",
      "updateUser",
    ]);
  });

  it("excludes by path and by tag when include is absent", async () => {
    const spec = await convert(petstore20, undefined, ["tag:pet", "path:POST /store/*"]);
    expect(spec.operations.map((op) => op.operationId)).toEqual([
      "getInventory",
      "getOrderById",
      "deleteOrder",
      "createUsersWithListInput",
      "loginUser",
      "getUserByName",
      "updateUser",
    ]);
  });
});
