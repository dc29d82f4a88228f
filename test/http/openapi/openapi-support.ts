/** Reading an OpenAPI document the way a client of it does: its operations, and JSON pointers. */

export interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  requestBody?: { required?: boolean; content: Record<string, { schema: unknown }> };
  responses: Record<string, unknown>;
}

export interface OpenApiDocument {
  openapi: string;
  servers?: { url: string }[];
  paths: Record<string, Record<string, OpenApiOperation | undefined>>;
  components?: Record<string, Record<string, unknown>>;
}

/** One operation that has an id, as OpenAPI tool servers take them. */
export interface NamedOperation {
  operationId: string;
  path: string;
  method: string;
  description: string | undefined;
  /** The JSON request body's schema, unresolved. */
  schema: unknown;
}

/** The operations with an `operationId`: what Open WebUI and GPT Actions turn into tools. */
export function operationsOf(doc: OpenApiDocument): NamedOperation[] {
  const found: NamedOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (op?.operationId === undefined) continue;
      found.push({ operationId: op.operationId, path, method, description: op.description, schema: op.requestBody?.content["application/json"]?.schema });
    }
  }
  return found;
}

/** What a local `$ref` (`#/a/b`, RFC 6901) points at in `doc`, or undefined. */
export function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  const tokens = ref
    .slice(1)
    .split("/")
    .slice(1)
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
  let node: unknown = doc;
  for (const token of tokens) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

type Schema = Record<string, unknown>;

/**
 * A value that satisfies `schema`, the way a client filling a form from an OpenAPI operation
 * (or a model told only the schema) would make one: `$ref`s followed within `doc`, a default,
 * const or first enum value when given, every required property, the smallest allowed number.
 */
export function sampleOf(schema: unknown, doc: unknown, depth = 0): unknown {
  if (typeof schema !== "object" || schema === null || depth > 8) return null;
  const s = schema as Schema;
  if (typeof s.$ref === "string") return sampleOf(resolvePointer(doc, s.$ref), doc, depth + 1);
  if ("const" in s) return s.const;
  if ("default" in s) return s.default;
  if (Array.isArray(s.enum)) return s.enum[0];
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = s[key];
    if (Array.isArray(options)) return sampleOf(options.find((o) => (o as Schema).type !== "null") ?? options[0], doc, depth + 1);
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  switch (type) {
    case "string":
      return s.format === "uri" ? "https://example.com/" : "sample".padEnd(typeof s.minLength === "number" ? s.minLength : 0, "x");
    case "integer":
    case "number":
      return typeof s.minimum === "number" ? s.minimum : 1;
    case "boolean":
      return false;
    case "array":
      return typeof s.minItems === "number" && s.minItems > 0 ? Array.from({ length: s.minItems }, () => sampleOf(s.items, doc, depth + 1)) : [];
    default: {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const required = Array.isArray(s.required) ? (s.required as string[]) : [];
      return Object.fromEntries(required.map((name) => [name, sampleOf(properties[name], doc, depth + 1)]));
    }
  }
}
