/**
 * Validation for remote tools: the server's `inputSchema` becomes a zod schema with zod's own
 * JSON Schema importer (`z.fromJSONSchema`), so remote arguments get the same per-field errors
 * as ours. Supported is what that importer supports: types, properties, required,
 * additionalProperties, enum and const, anyOf/oneOf/allOf, items, string/number bounds,
 * formats, local `$ref`s; patterns are left to the remote server (withoutPatterns). A schema it cannot express (`not`, remote `$ref`s, ...) is
 * still offered to the model as given, but arguments are then only checked to be an object and
 * the remote server validates them; the server's status names each such tool.
 */
import { z } from "zod";

export type RemoteValidator = { schema: z.ZodType; unsupported?: string };

const ANY_OBJECT = z.record(z.string(), z.unknown());

/**
 * The schema without its regular expressions. zod's importer compiles `pattern` and
 * `patternProperties` into the JavaScript engine's backtracking RegExp, which would then run
 * over every caller's arguments: one remote `^(a+)+$` could hold the isolate for minutes, and no
 * deadline can interrupt a RegExp. The remote server checks its own patterns, so toolgate leaves
 * them to it; a level whose keys patternProperties admitted no longer refuses other keys either.
 * Depth is bounded before this runs (screen-tools.ts holds schemas to the argument caps).
 */
function withoutPatterns(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutPatterns);
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Record<string, unknown> = {};
  const admitsByPattern = "patternProperties" in schema;
  for (const [key, value] of Object.entries(schema)) {
    if (key === "pattern" && typeof value === "string") continue;
    if (key === "patternProperties") continue;
    if (key === "additionalProperties" && admitsByPattern && value === false) continue;
    out[key] = withoutPatterns(value);
  }
  return out;
}

/** The validator for a remote input schema, or a permissive one with the reason. */
export function validatorFor(inputSchema: Record<string, unknown>): RemoteValidator {
  try {
    return { schema: z.fromJSONSchema(withoutPatterns(inputSchema) as Parameters<typeof z.fromJSONSchema>[0]) };
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
