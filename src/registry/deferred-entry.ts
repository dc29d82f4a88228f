/**
 * How a registered tool's schema-derived fields are filled in: its JSON Schema (and the
 * description that may come from it) now, or at first use while the registry defers them
 * (Registry.deferSchemas), and a zod schema given as a function built at its first read.
 */
import { z } from "zod";
import type { JsonSchema, ToolEntry } from "./types.ts";

/** Derives the JSON Schema the model sees; refuses schemas a provider cannot take. */
export function deriveParameters(name: string, schema: z.ZodType): JsonSchema | string {
  let json: JsonSchema;
  try {
    json = z.toJSONSchema(schema, { io: "input", unrepresentable: "throw" }) as JsonSchema;
  } catch (error) {
    return `Tool '${name}': its schema cannot be expressed as JSON Schema (${error instanceof Error ? error.message : String(error)}).`;
  }
  if (json.type !== "object") {
    return `Tool '${name}': the schema must be an object schema (z.object({...})), because providers pass arguments as named fields.`;
  }
  // Providers want a bare object schema: the draft marker is noise in every definition, and a
  // root description is already the tool's. (Rest-copying instead of `delete` keeps V8's fast
  // object layout, which JSON.stringify of 500 definitions notices.)
  const { $schema: _draft, description: _described, ...parameters } = json;
  return parameters;
}

/**
 * The spec's description, or when it is missing or blank the schema's own: the zod schema's
 * `.describe(...)`, else the root `description` of given `parameters` (a remote tool's).
 */
export function descriptionOf(declared: string | undefined, entry: Pick<ToolEntry, "schema">, parameters: JsonSchema): string {
  // A tool file that writes `description: ""` beside a described schema means "use that", not
  // "show nothing" (the original fell back on a falsy one, reference §2.1). Blank is read as
  // empty too: a description of spaces tells the model nothing either.
  if (declared !== undefined && declared.trim() !== "") return declared;
  // Read only here: a declared description leaves a schema given as a function unbuilt.
  const fromSchema = entry.schema.description ?? parameters.description;
  return typeof fromSchema === "string" ? fromSchema : "";
}

/** Sets an entry's property to its final value, replacing the getter that computed it. */
function settleProperty(entry: ToolEntry, key: "schema" | "parameters" | "description", value: unknown): void {
  Object.defineProperty(entry, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Makes `entry.schema` call `build` at its first read and keep the schema it returns: the tool
 * file's zod schema is then constructed by the first call, listing or document that needs it,
 * not by the import that registers it.
 */
export function schemaAtFirstUse(entry: ToolEntry, build: () => z.ZodType): void {
  Object.defineProperty(entry, "schema", {
    get: () => {
      const schema = build();
      settleProperty(entry, "schema", schema);
      return schema;
    },
    enumerable: true,
    configurable: true,
  });
}

/** Entries whose `parameters` are still to be derived from their zod schema (deferredEntry). */
const DEFERRED = new WeakSet<ToolEntry>();

/**
 * Whether `entry.parameters` is not derived yet and, when it is, will be derived from
 * `entry.schema` (not given by the spec): the coerce stage can then read the zod schema instead
 * of paying for the derivation (src/arguments/fits-as-sent.ts).
 */
export const parametersDeferred = (entry: ToolEntry): boolean => DEFERRED.has(entry);

/**
 * An entry whose JSON Schema (and the description that may come from it) is derived at its first
 * read, then kept as plain data. A schema that cannot be expressed throws there, naming the tool.
 */
export function deferredEntry(entry: ToolEntry, declared: string | undefined): ToolEntry {
  const settle = (): ToolEntry => {
    const parameters = deriveParameters(entry.name, entry.schema);
    if (typeof parameters === "string") throw new Error(parameters);
    DEFERRED.delete(entry);
    settleProperty(entry, "parameters", parameters);
    settleProperty(entry, "description", descriptionOf(declared, entry, parameters));
    return entry;
  };
  Object.defineProperties(entry, {
    parameters: { get: () => settle().parameters, enumerable: true, configurable: true },
    description: { get: () => settle().description, enumerable: true, configurable: true },
  });
  DEFERRED.add(entry);
  return entry;
}
