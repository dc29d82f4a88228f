/**
 * Tool names of a source's operations: `<source>__<operationId>`, or `<source>__<method>_<path>`
 * for an operation without one, sanitised and at most 64 characters (fit-tool-name.ts), and
 * unique in the source. operationIds must be unique (OpenAPI 3.1 §4.8.10.1), yet specs break
 * the rule, and sanitising can make two distinct ones equal (`pets.list`, `pets_list`): the
 * first operation keeps the name, each later one keeps a name too, suffixed with a hash of its
 * method and path (stable when the spec reorders), and the source's problems say so.
 */
import { fitToolName, nameHash, sanitizeNamePart } from "../registry/fit-tool-name.ts";
import type { HttpMethod } from "./operation.ts";

export type OperationName = { name: string; problem?: string } | { name?: undefined; problem: string };

/** Names operations one at a time, remembering the names given. */
export class OperationNamer {
  private readonly taken = new Set<string>();

  private readonly source: string;

  constructor(source: string) {
    this.source = source;
  }

  /** The name for one operation, with a problem line when it had to differ from the plain one. */
  name(operationId: string | undefined, method: HttpMethod, path: string): OperationName {
    const route = `${method.toUpperCase()} ${path}`;
    const base = operationId !== undefined && operationId !== "" ? sanitizeNamePart(operationId) : routeName(method, path);
    const plain = fitToolName(`${this.source}__${base}`, operationId ?? route);
    if (!this.taken.has(plain)) {
      this.taken.add(plain);
      return { name: plain };
    }
    const suffix = `_${nameHash(route)}`;
    const distinct = `${plain.slice(0, 64 - suffix.length)}${suffix}`;
    if (this.taken.has(distinct)) return { problem: `${route}: skipped, its name '${plain}' and the alternative '${distinct}' are both taken` };
    this.taken.add(distinct);
    const why =
      operationId === undefined ? "another operation has the same name" : `its operationId '${operationId}' gives the same name as another operation's`;
    return { name: distinct, problem: `${route}: named '${distinct}', not '${plain}': ${why}` };
  }
}

// `get /pets/{petId}` → `get_pets_petId`: runs of other characters become one `_`, for a name a person can read.
function routeName(method: HttpMethod, path: string): string {
  return `${method}_${path}`.replace(/[^A-Za-z0-9-]+/g, "_").replace(/^_+|_+$/g, "");
}
