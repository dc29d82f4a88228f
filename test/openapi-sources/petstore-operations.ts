/**
 * The operations of apis/specs/petstore.yaml as the calls tests use them, written out by hand in
 * the shape conversion produces (operation.ts), so the call side is tested on its own; the
 * build-time test (build-time-sources.test.ts) registers the generated ones.
 */
import type { OpenApiOperation, OperationParameter } from "../../src/openapi-sources/operation.ts";

const query = (name: string, over: Partial<OperationParameter> = {}): OperationParameter => ({
  name,
  arg: name,
  in: "query",
  required: false,
  style: "form",
  explode: true,
  allowReserved: false,
  ...over,
});
const petId: OperationParameter = { name: "petId", arg: "petId", in: "path", required: true, style: "simple", explode: false, allowReserved: false };
const petIdSchema = { type: "string", maxLength: 200, description: "The pet's id, such as p-1." };
const newPet = {
  type: "object",
  required: ["name"],
  properties: { name: { type: "string", pattern: "^[A-Za-z][A-Za-z ]{0,39}$" }, tag: { type: "string", maxLength: 40 } },
};

function op(over: Omit<OpenApiOperation, "name" | "tags" | "description"> & { operationId: string }): OpenApiOperation {
  return {
    name: over.operationId,
    tags: [over.path.startsWith("/store") ? "store" : "pets"],
    description: `${over.method.toUpperCase()} ${over.path}`,
    ...over,
  };
}

/** Name without the source prefix → operation; `withSource` prefixes names per test source. */
export const PETSTORE_OPERATIONS: readonly OpenApiOperation[] = [
  op({
    operationId: "listPets",
    method: "get",
    path: "/pets",
    parameters: [
      query("limit"),
      query("status"),
      query("tags", { explode: false }),
      { name: "X-Request-Id", arg: "X-Request-Id", in: "header", required: false, style: "simple", explode: false, allowReserved: false },
    ],
    inputSchema: {
      type: "object",
      properties: {
        limit: { type: "integer", minimum: 1, maximum: 100 },
        status: { type: "string", enum: ["available", "pending", "sold"] },
        tags: { type: "array", items: { type: "string" }, maxItems: 10 },
        "X-Request-Id": { type: "string", maxLength: 64 },
      },
      additionalProperties: false,
    },
  }),
  op({
    operationId: "createPet",
    method: "post",
    path: "/pets",
    parameters: [],
    body: { contentType: "application/json", required: true },
    inputSchema: { type: "object", required: ["body"], properties: { body: newPet }, additionalProperties: false },
  }),
  op({
    operationId: "searchPets",
    method: "get",
    path: "/pets/search",
    parameters: [
      query("filter", { style: "deepObject" }),
      query("ids", { style: "pipeDelimited", explode: false }),
      query("words", { style: "spaceDelimited", explode: false }),
      { name: "region", arg: "region", in: "cookie", required: false, style: "form", explode: true, allowReserved: false },
    ],
    inputSchema: {
      type: "object",
      properties: {
        filter: { type: "object", properties: { species: { type: "string" }, color: { type: "string" } }, additionalProperties: false },
        ids: { type: "array", items: { type: "string" } },
        words: { type: "array", items: { type: "string" } },
        region: { type: "string", enum: ["eu", "us"] },
      },
      additionalProperties: false,
    },
  }),
  op({
    operationId: "showPetById",
    method: "get",
    path: "/pets/{petId}",
    parameters: [petId],
    inputSchema: { type: "object", required: ["petId"], properties: { petId: petIdSchema }, additionalProperties: false },
  }),
  op({
    operationId: "deletePet",
    method: "delete",
    path: "/pets/{petId}",
    parameters: [petId],
    inputSchema: { type: "object", required: ["petId"], properties: { petId: petIdSchema }, additionalProperties: false },
  }),
  op({
    operationId: "getPetPhoto",
    method: "get",
    path: "/pets/{petId}/photo",
    parameters: [petId],
    inputSchema: { type: "object", required: ["petId"], properties: { petId: petIdSchema }, additionalProperties: false },
  }),
  op({
    operationId: "uploadPetPhoto",
    method: "post",
    path: "/pets/{petId}/photo",
    parameters: [petId],
    body: { contentType: "multipart/form-data", required: true },
    inputSchema: {
      type: "object",
      required: ["petId", "body"],
      properties: {
        petId: petIdSchema,
        body: {
          type: "object",
          required: ["caption"],
          properties: { caption: { type: "string", maxLength: 200 }, meta: { type: "object", properties: { taken: { type: "string" } } } },
        },
      },
      additionalProperties: false,
    },
  }),
  op({
    operationId: "replacePetNotes",
    method: "put",
    path: "/pets/{petId}/notes",
    parameters: [petId],
    body: { contentType: "text/plain", required: true },
    inputSchema: {
      type: "object",
      required: ["petId", "body"],
      properties: { petId: petIdSchema, body: { type: "string", maxLength: 10_000 } },
      additionalProperties: false,
    },
  }),
  op({
    operationId: "placeOrder",
    method: "post",
    path: "/store/orders",
    parameters: [],
    body: { contentType: "application/x-www-form-urlencoded", required: true },
    inputSchema: {
      type: "object",
      required: ["body"],
      properties: {
        body: {
          type: "object",
          required: ["petId", "quantity"],
          properties: { petId: { type: "string" }, quantity: { type: "integer", minimum: 1, maximum: 5 }, notes: { type: "array", items: { type: "string" } } },
        },
      },
      additionalProperties: false,
    },
  }),
  op({
    operationId: "getInventory",
    method: "get",
    path: "/store/inventory",
    parameters: [],
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
  }),
];
