/**
 * Validation for remote tools: the server's `inputSchema` becomes a zod schema with zod's own
 * JSON Schema importer (`z.fromJSONSchema`), so remote arguments get the same per-field errors
 * as ours. Supported is what that importer supports: types, properties, required,
 * additionalProperties, enum and const, anyOf/oneOf/allOf, items, string/number bounds,
 * patterns, formats, local `$ref`s. A schema it cannot express (`not`, remote `$ref`s, ...) is
 * still offered to the model as given, but arguments are then only checked to be an object and
 * the remote server validates them; the server's status names each such tool.
 */
import { z } from "zod";

export type RemoteValidator = { schema: z.ZodType; unsupported?: string };

const ANY_OBJECT = z.record(z.string(), z.unknown());

/** The validator for a remote input schema, or a permissive one with the reason. */
export function validatorFor(inputSchema: Record<string, unknown>): RemoteValidator {
  try {
    return { schema: z.fromJSONSchema(inputSchema as Parameters<typeof z.fromJSONSchema>[0]) };
  } catch (error) {
    return { schema: ANY_OBJECT, unsupported: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The schema the model sees: the server's, as given, except that the root is made an object
 * schema when it does not say so (MCP requires `type: "object"`; some servers omit it).
 */
export function modelSchema(inputSchema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _draft, ...schema } = inputSchema;
  return schema.type === "object" ? schema : { ...schema, type: "object", properties: schema.properties ?? {} };
}
