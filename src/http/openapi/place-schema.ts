/**
 * A tool's JSON Schema placed inside a larger document. Its local `$ref`s (`#/$defs/Node`, `#`
 * for a recursive root, a draft-07 server's `#/definitions/...`) point into the schema itself,
 * but inside an OpenAPI document `#` is the document's root; so a schema that has any becomes a
 * component, and each local `$ref` is prefixed with that component's pointer.
 */
import type { JsonSchema } from "../../registry/types.ts";

export interface PlacedSchema {
  /** What the operation carries: the schema itself, or a `$ref` to its component. */
  schema: JsonSchema;
  /** Components to add under `components.schemas`, by name (empty when none were needed). */
  components: Record<string, JsonSchema>;
}

/** Places `schema`, the JSON Schema of `toolName`'s arguments; `json` is its JSON text. */
export function placeSchema(toolName: string, schema: JsonSchema, json: string): PlacedSchema {
  // Cheap refusal first: most tool schemas have no $ref at all.
  if (!json.includes('"$ref":"#')) return { schema, components: {} };
  const name = `tool.${toolName}`;
  const pointer = `#/components/schemas/${name}`;
  return { schema: { $ref: pointer }, components: { [name]: rebase(schema, pointer) as JsonSchema } };
}

function rebase(value: unknown, pointer: string): unknown {
  if (Array.isArray(value)) return value.map((item) => rebase(item, pointer));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // `const` and `enum` hold data, not schemas: a `$ref` there is a value to keep as it is.
    if (key === "const" || key === "enum" || key === "examples" || key === "default") out[key] = item;
    else if (key === "$ref" && typeof item === "string" && item.startsWith("#")) out[key] = pointer + item.slice(1);
    else out[key] = rebase(item, pointer);
  }
  return out;
}
