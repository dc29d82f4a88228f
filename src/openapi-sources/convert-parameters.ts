/**
 * An operation's parameters as tool arguments: one input-schema property each, and where and
 * how each one goes on the wire (OperationParameter). Path-level parameters apply unless the
 * operation redefines the same name and location (OpenAPI 3.1 §4.8.9.1). Swagger 2.0's
 * `collectionFormat` was already mapped to `style`/`explode` by the upgrader.
 */

import { isPlainRecord } from "../arguments/coerce-scalars.ts";
import type { InputSchemaWriter } from "./input-schema-writer.ts";
import { cut, MAX_SCHEMA_DESCRIPTION_CHARS, setMember } from "./input-schema-writer.ts";
import type { OperationParameter } from "./operation.ts";
import { UNRESOLVED_REF } from "./unresolved-ref.ts";

/**
 * Parameters one operation may have. GitHub's largest has 22; past 100 an operation is a
 * generated catch-all no model fills sensibly, and every parameter is a property each listing
 * of the tool repeats. The cap is checked before any parameter is converted.
 */
export const MAX_OPERATION_PARAMETERS = 100;

type Location = OperationParameter["in"];
type Style = OperationParameter["style"];

// OpenAPI 3.1 §4.8.12.4: the styles each location allows, the first being its default.
const STYLES: Record<Location, readonly Style[]> = {
  path: ["simple", "label", "matrix"],
  query: ["form", "spaceDelimited", "pipeDelimited", "deepObject"],
  header: ["simple"],
  cookie: ["form"],
};
// §4.8.12.1: header parameters with these names are ignored; the call sets them itself.
const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"]);
// Property names Anthropic's API accepts in an input schema; a wire name outside it gets a sanitised argument name.
const ARG_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export interface ConvertedParameters {
  parameters: OperationParameter[];
  properties: Record<string, unknown>;
  required: string[];
  /** Optional parameters left out, one line each. */
  dropped: string[];
}

/**
 * The parameters of an operation (path-level first, then its own, both already resolved), or
 * why the operation cannot become a tool. `reservedArgs` are argument names taken already (`body`).
 */
export function convertParameters(
  pathLevel: unknown,
  own: unknown,
  writer: InputSchemaWriter,
  reservedArgs: ReadonlySet<string>,
): ConvertedParameters | { problem: string } {
  const listed = [...(Array.isArray(pathLevel) ? pathLevel : []), ...(Array.isArray(own) ? own : [])];
  if (listed.length > MAX_OPERATION_PARAMETERS) return { problem: `it has ${listed.length} parameters; at most ${MAX_OPERATION_PARAMETERS} are supported` };
  const byKey = new Map<string, Record<string, unknown>>();
  const dropped: string[] = [];
  for (const parameter of listed) {
    if (typeof parameter !== "object" || parameter === null) return { problem: "a parameter is not an object" };
    const record = parameter as Record<string, unknown>;
    if (typeof record[UNRESOLVED_REF] === "string") return { problem: record[UNRESOLVED_REF] as string };
    const { name, in: location } = record;
    if (typeof name !== "string" || name === "") return { problem: "a parameter has no name" };
    if (location !== "path" && location !== "query" && location !== "header" && location !== "cookie") {
      if (record.required === true) return { problem: `its required parameter '${name}' is in '${String(location)}', which is not supported` };
      dropped.push(`optional parameter '${name}' in '${String(location)}' left out: that location is not supported`);
      continue;
    }
    if (location === "header" && IGNORED_HEADERS.has(name.toLowerCase())) continue;
    byKey.set(`${location}\u0000${name}`, record);
  }
  const args = argumentNames([...byKey.values()], reservedArgs);
  if (typeof args === "string") return { problem: args };
  const result: ConvertedParameters = { parameters: [], properties: {}, required: [], dropped };
  for (const [index, record] of [...byKey.values()].entries()) {
    const name = record.name as string;
    const location = record.in as Location;
    const arg = args[index] as string;
    const required = location === "path" || record.required === true;
    const schema = parameterSchema(record, writer);
    if (writer.problem !== undefined) return { problem: `parameter '${name}': ${writer.problem}` };
    if (schema === undefined) {
      if (required) return { problem: `its required parameter '${name}' is serialised by media type ('content'), which is not supported` };
      dropped.push(`optional parameter '${name}' left out: it is serialised by media type ('content'), which is not supported`);
      continue;
    }
    const styles = STYLES[location];
    const style = styles.includes(record.style as Style) ? (record.style as Style) : (styles[0] as Style);
    result.parameters.push({
      name,
      arg,
      in: location,
      required,
      style,
      explode: typeof record.explode === "boolean" ? record.explode : style === "form",
      allowReserved: location === "query" && record.allowReserved === true,
    });
    setMember(result.properties, arg, schema);
    if (required) result.required.push(arg);
  }
  return result;
}

/**
 * The argument names: the wire name, unless it is taken by another location or by `body`
 * (then `<in>_<name>`), or is a name a provider rejects (then sanitised).
 */
function argumentNames(parameters: readonly Record<string, unknown>[], reserved: ReadonlySet<string>): string[] | string {
  const counts = new Map<string, number>();
  for (const { name } of parameters) counts.set(name as string, (counts.get(name as string) ?? 0) + 1);
  const taken = new Set(reserved);
  const names: string[] = [];
  for (const { name, in: location } of parameters) {
    const wire = name as string;
    let arg = (counts.get(wire) ?? 0) > 1 || reserved.has(wire) ? `${location as string}_${wire}` : wire;
    if (!ARG_NAME.test(arg)) arg = arg.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 64);
    if (taken.has(arg)) return `its parameters '${wire}' and another one both become the argument '${arg}'`;
    taken.add(arg);
    names.push(arg);
  }
  return names;
}

/**
 * The property for one parameter: its schema, with the parameter's own description and
 * deprecation on top; undefined when it is serialised by media type (`content`, §4.8.12.3),
 * which no `style` describes. A parameter with neither (invalid) takes any value.
 */
function parameterSchema(record: Record<string, unknown>, writer: InputSchemaWriter): Record<string, unknown> | undefined {
  if (record.schema === undefined && record.content !== undefined) return undefined;
  const written = writer.schema(record.schema ?? {}, 3);
  const schema: Record<string, unknown> = isPlainRecord(written) ? written : {};
  if (typeof record.description === "string" && record.description !== "") schema.description = cut(record.description, MAX_SCHEMA_DESCRIPTION_CHARS);
  if (record.deprecated === true) schema.deprecated = true;
  return schema;
}
