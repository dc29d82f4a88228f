/**
 * MCP conformance fixture for JSON Schema 2020-12 keywords in `inputSchema` (scenario
 * json-schema-2020-12, SEP-1613): `$schema`, `$defs` with a `$ref`, `additionalProperties`.
 * The registry drops `$schema` from every definition (providers do not want it), so this tool
 * states its whole schema again through dynamicSchemaOverrides, derived from the same zod schema
 * with `address` registered in a registry of its own so it becomes a `$defs` entry.
 */
import { z } from "zod";
import { registry } from "../../src/registry/registry.ts";

/** The schema and the JSON Schema stated from it, built at the tool's first use like any tool's schema. */
function buildFixture() {
  const defs = z.registry<{ id: string }>();
  const address = z.object({ street: z.string().optional(), city: z.string().optional() }).register(defs, { id: "address" });
  const schema = z.strictObject({ name: z.string().optional(), address: address.optional() });
  return { schema, parameters: z.toJSONSchema(schema, { io: "input", metadata: defs }) as Record<string, unknown> };
}
let fixture: ReturnType<typeof buildFixture> | undefined;
const built = (): ReturnType<typeof buildFixture> => (fixture ??= buildFixture());

registry.register({
  name: "json_schema_2020_12_tool",
  toolset: "conformance",
  fixture: true,
  schema: () => built().schema,
  example: { name: "Ada", address: { city: "London" } },
  description: "Conformance fixture: an input schema using JSON Schema 2020-12 keywords.",
  dynamicSchemaOverrides: () => ({ parameters: built().parameters }),
  handler: ({ name, address: where }) => ({ name: name ?? null, city: where?.city ?? null }),
});
