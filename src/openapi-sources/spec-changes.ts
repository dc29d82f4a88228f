/**
 * What moved between two versions of a source's spec, by tool: the "changed definitions" an admin
 * reviews before a refreshed spec's tools are served. A tool changed when anything a call or the
 * model sees differs (method, path, description, input schema, parameters, body).
 */
import type { ConvertedSpec, OpenApiOperation } from "./operation.ts";

export interface SpecChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

export function specChanges(before: ConvertedSpec, after: ConvertedSpec): SpecChanges {
  const old = new Map(before.operations.map((operation) => [operation.name, fingerprint(operation)]));
  const added: string[] = [];
  const changed: string[] = [];
  for (const operation of after.operations) {
    const previous = old.get(operation.name);
    if (previous === undefined) added.push(operation.name);
    else if (previous !== fingerprint(operation)) changed.push(operation.name);
    old.delete(operation.name);
  }
  return { added, removed: [...old.keys()], changed };
}

/** Operations come from one converter, so their keys are in one order: JSON.stringify compares them. */
function fingerprint(operation: OpenApiOperation): string {
  return JSON.stringify(operation);
}
