/**
 * One OpenAPI operation as toolgate keeps it once a spec is converted: everything a call needs
 * (where each argument goes, how it is serialised) and everything the model sees (name,
 * description, input schema), with `$ref`s already resolved. Conversion (convert-spec.ts) and
 * calls (openapi-tool.ts) meet here; runtime sources store it in KV and build-time sources
 * commit it, so it is plain JSON.
 */
import type { JsonSchema } from "../registry/types.ts";

export const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Methods a retry may repeat (RFC 9110 §9.2.2): the rest run once. */
export const IDEMPOTENT_METHODS: ReadonlySet<HttpMethod> = new Set(["get", "head", "options", "put", "delete", "trace"]);

/** Where one parameter goes and how it is written (OpenAPI 3 `style` / `explode`; Swagger 2's `collectionFormat` is mapped onto them). */
export interface OperationParameter {
  /** The name on the wire. */
  name: string;
  /** The argument's name in the tool's input schema (the wire name, unless two locations share it). */
  arg: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  style: "simple" | "label" | "matrix" | "form" | "spaceDelimited" | "pipeDelimited" | "deepObject";
  explode: boolean;
  allowReserved: boolean;
}

/** The request body, when the operation takes one; its argument is always `body`. */
export interface OperationBody {
  contentType: "application/json" | "application/x-www-form-urlencoded" | "multipart/form-data" | "text/plain";
  required: boolean;
}

export interface OpenApiOperation {
  /** The registry name: `<source>__<operation>`, sanitised to ^[a-zA-Z0-9_-]{1,64}$ and unique in the source. */
  name: string;
  /** The spec's operationId, when it gives one. */
  operationId?: string;
  method: HttpMethod;
  /** The path template as the spec writes it (`/pets/{petId}`). */
  path: string;
  /** From summary and description, with parameters' own docs, units and enums left in the schema. */
  description: string;
  /** An object schema: one property per parameter (`arg`) plus `body`; self-contained (`$defs` only for recursive schemas). */
  inputSchema: JsonSchema;
  parameters: OperationParameter[];
  body?: OperationBody;
  tags: string[];
  /** Arguments built from the spec's own examples (example-arguments.ts); absent when none that validates can be made. */
  example?: Record<string, unknown>;
}

/** A spec converted: its operations, and why anything was left out. */
export interface ConvertedSpec {
  /** `2.0`, `3.0.x` or `3.1.x` as the spec declares it. */
  specVersion: string;
  title: string;
  /** The spec's own server URLs (absolute, or relative to where it was fetched), first is the default. */
  servers: string[];
  operations: OpenApiOperation[];
  /** One line per operation skipped or simplified, naming it and saying why. */
  problems: string[];
}
