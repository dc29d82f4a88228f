/**
 * The patterns a source's `include`, `exclude` and `approval` use to name operations: a glob on
 * the operationId (`deletePet`, `*Pet`), or with a prefix a glob on a tag (`tag:store`) or on
 * the method and path (`path:DELETE /pets/*`; `path:/pets/*` for any method). Globs are the key
 * policies' (`*` any run, `?` one character), so one syntax covers tools and operations.
 */
import { compileGlob } from "../policy/glob.ts";
import type { OpenApiOperation } from "./operation.ts";

export type OperationTest = (operation: Pick<OpenApiOperation, "operationId" | "name" | "method" | "path" | "tags">) => boolean;

/** A test for one pattern, compiled once. An operation without an operationId is matched by its tool name. */
export function compileOperationPattern(pattern: string): OperationTest {
  if (pattern.startsWith("tag:")) {
    const tag = compileGlob(pattern.slice("tag:".length));
    return (operation) => operation.tags.some(tag);
  }
  if (pattern.startsWith("path:")) {
    const rest = pattern.slice("path:".length).trim();
    const space = rest.indexOf(" ");
    const method = space > 0 && !rest.startsWith("/") ? rest.slice(0, space).toLowerCase() : undefined;
    const path = compileGlob(method === undefined ? rest : rest.slice(space + 1).trim());
    return (operation) => (method === undefined || method === operation.method) && path(operation.path);
  }
  const id = compileGlob(pattern);
  return (operation) => id(operation.operationId ?? operation.name);
}
