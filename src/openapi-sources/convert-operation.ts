/**
 * One resolved operation made into an OpenApiOperation: its input schema (parameters and
 * `body`), where each argument goes, and a description for the model. Why an operation cannot
 * become a tool is returned as a sentence, never thrown.
 */
import { shapeProblem } from "../arguments/argument-shape.ts";
import { exampleArguments } from "../arguments/example-arguments.ts";
import { convertBody } from "./convert-body.ts";
import { convertParameters } from "./convert-parameters.ts";
import { cut, InputSchemaWriter } from "./input-schema-writer.ts";
import type { HttpMethod, OpenApiOperation } from "./operation.ts";

/** Characters of a tool description; the summary comes first, so a cut keeps what matters most. */
export const MAX_DESCRIPTION_CHARS = 1_000;

export interface OperationInput {
  name: string;
  method: HttpMethod;
  path: string;
  operation: Record<string, unknown>;
  /** The path item's own parameters, which the operation inherits. */
  pathParameters: unknown;
  tags: string[];
  refNames: ReadonlyMap<object, string>;
}

/** `values`: what the operation's schemas cost to write, kept or not (a source's budget counts both). */
export type ConvertedOperation = ({ ok: true; operation: OpenApiOperation; dropped: string[] } | { ok: false; problem: string }) & { values: number };

/** The tool for one operation, or why there is none. */
export function convertOperation(input: OperationInput): ConvertedOperation {
  const writer = new InputSchemaWriter(input.refNames);
  return { ...convertWith(writer, input), values: writer.valueCount };
}

function convertWith(
  writer: InputSchemaWriter,
  input: OperationInput,
): { ok: true; operation: OpenApiOperation; dropped: string[] } | { ok: false; problem: string } {
  const { operation, method, path } = input;
  const body = convertBody(operation.requestBody, writer);
  if ("problem" in body) return { ok: false, problem: body.problem };
  const parameters = convertParameters(input.pathParameters, operation.parameters, writer, new Set(body.body === undefined ? [] : ["body"]));
  if ("problem" in parameters) return { ok: false, problem: parameters.problem };
  const properties = parameters.properties;
  const required = parameters.required;
  if (body.body !== undefined) {
    properties.body = body.schema;
    if (body.body.required) required.push("body");
  }
  const defs = writer.defs();
  if (writer.problem !== undefined) return { ok: false, problem: writer.problem };
  const inputSchema: Record<string, unknown> = { type: "object", properties, additionalProperties: false };
  if (required.length > 0) inputSchema.required = required;
  if (defs !== undefined) inputSchema.$defs = defs;
  // The rule remote tools' schemas are screened by (screen-tools.ts), applied to the whole schema.
  const shape = shapeProblem(inputSchema);
  if (shape !== undefined) {
    return { ok: false, problem: "tooDeep" in shape ? `its input schema nests too deep (at ${shape.tooDeep})` : "its input schema holds too many values" };
  }
  const example = exampleArguments(inputSchema);
  const operationId = typeof operation.operationId === "string" && operation.operationId !== "" ? operation.operationId : undefined;
  return {
    ok: true,
    operation: {
      name: input.name,
      ...(operationId === undefined ? {} : { operationId }),
      method,
      path,
      description: description(operation, method, path),
      inputSchema,
      parameters: parameters.parameters,
      ...(body.body === undefined ? {} : { body: body.body }),
      tags: input.tags,
      ...(example === undefined ? {} : { example }),
    },
    dropped: body.dropped === undefined ? parameters.dropped : [body.dropped, ...parameters.dropped],
  };
}

function description(operation: Record<string, unknown>, method: HttpMethod, path: string): string {
  const parts = [operation.summary, operation.description]
    .filter((part): part is string => typeof part === "string" && part.trim() !== "")
    .map((part) => part.trim());
  // Many specs repeat the summary as the description's first line.
  if (parts.length === 2 && parts[1]?.startsWith(parts[0] as string)) parts.shift();
  if (parts.length === 0) parts.push(`${method.toUpperCase()} ${path}`);
  if (operation.deprecated === true) parts.push("Deprecated.");
  const text = parts.join("\n\n");
  return cut(text, MAX_DESCRIPTION_CHARS);
}
