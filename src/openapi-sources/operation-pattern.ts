/**
 * The patterns a source's `include`, `exclude` and `approval` name operations by
 * (source-config.ts): a glob on the operationId, `tag:<glob>` on any of its tags, and
 * `path:<METHOD> <glob>` or `path:<glob>` on its path. Globs are the key policies' (`*`, `?`),
 * compiled once per pattern and isolate, not once per operation: a source's approval patterns
 * are asked about each of its operations at every registration (up to 2,000 per source).
 */
import { compileGlob } from "../policy/glob.ts";
import type { HttpMethod } from "./operation.ts";

/** What a pattern can look at. */
export interface OperationRef {
  operationId?: string;
  method: HttpMethod;
  path: string;
  tags: readonly string[];
}

/**
 * A test for one pattern.
 *
 * @example
 * compileOperationPattern("path:GET /pets/*")({ method: "get", path: "/pets/{petId}", tags: [] }); // true
 */
export function compileOperationPattern(pattern: string): Matcher {
  let matcher = compiled.get(pattern);
  if (matcher === undefined) {
    // Patterns come from admins' source configs: few, but bounded all the same.
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    matcher = compile(pattern);
    compiled.set(pattern, matcher);
  }
  return matcher;
}

type Matcher = (operation: OperationRef) => boolean;
const MAX_COMPILED = 1_000;
const compiled = new Map<string, Matcher>();

function compile(pattern: string): Matcher {
  if (pattern.startsWith("tag:")) {
    const matches = compileGlob(pattern.slice("tag:".length));
    return (operation) => operation.tags.some(matches);
  }
  if (pattern.startsWith("path:")) {
    const rest = pattern.slice("path:".length).trim();
    const space = rest.indexOf(" ");
    // A method is a word before the path; a path always starts with `/` (or a glob character).
    const method = space > 0 && /^[A-Za-z]+$/.test(rest.slice(0, space)) ? rest.slice(0, space).toLowerCase() : undefined;
    const matches = compileGlob(method === undefined ? rest : rest.slice(space + 1).trim());
    return (operation) => (method === undefined || operation.method === method) && matches(operation.path);
  }
  const matches = compileGlob(pattern);
  return (operation) => operation.operationId !== undefined && matches(operation.operationId);
}

/**
 * Whether an operation becomes a tool: it matches an `include` pattern (every operation does
 * when `include` is absent) and no `exclude` pattern.
 */
export function compileOperationSelection(include: readonly string[] | undefined, exclude: readonly string[] = []): (operation: OperationRef) => boolean {
  const included = include?.map(compileOperationPattern);
  const excluded = exclude.map(compileOperationPattern);
  return (operation) => (included === undefined || included.some((test) => test(operation))) && !excluded.some((test) => test(operation));
}
