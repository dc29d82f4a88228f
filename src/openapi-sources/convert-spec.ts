/**
 * A loaded spec (load-spec.ts) made into the operations a source offers as tools. The steps, in
 * order: keep only what inputs need (spec-inputs.ts), note the servers, upgrade Swagger 2.0 and
 * OpenAPI 3.0 to 3.1 with @scalar/openapi-upgrader (so `nullable`, boolean exclusive bounds and
 * `file` become JSON Schema), resolve `$ref`s within the spec (resolve-spec-refs.ts), then
 * convert each selected operation. It runs at build time in Node and at run time in a Worker,
 * so each step is linear in the kept document and the operations are converted in slices.
 */
import { upgrade } from "@scalar/openapi-upgrader";
import { isPlainRecord } from "../arguments/coerce-scalars.ts";
import { type ConvertedOperation, convertOperation, type OperationInput } from "./convert-operation.ts";
import { cut } from "./input-schema-writer.ts";
import { specVersion } from "./load-spec.ts";
import type { ConvertedSpec, HttpMethod, OpenApiOperation } from "./operation.ts";
import { HTTP_METHODS } from "./operation.ts";
import { OperationNamer } from "./operation-namer.ts";
import { compileOperationSelection, type OperationRef } from "./operation-pattern.ts";
import { resolveSpecRefs, UNRESOLVED_REF } from "./resolve-spec-refs.ts";
import { operationRef, specInputs } from "./spec-inputs.ts";
import { specServers } from "./spec-servers.ts";

/**
 * Operations one source may offer. GitHub's REST API, among the largest, has about 1,200; a
 * source past this is cut with a problem line, as no model chooses among more.
 */
export const MAX_SOURCE_OPERATIONS = 2_000;

/**
 * Values (object members and array elements) all of a source's input schemas may hold
 * together; each operation's own are capped at MAX_ARGUMENT_VALUES. GitHub's ~1,200 operations
 * hold about 35,000. This bounds the time and memory of a spec whose `$ref`s make many
 * operations large at once; the operations past it are left out, with a problem line.
 */
export const MAX_SOURCE_SCHEMA_VALUES = 500_000;

/** Problem lines kept; past this, one line counts the rest. */
export const MAX_PROBLEMS = 500;

// Operations converted between two pauses, so a large spec at run time lets other requests in.
const SLICE_OPERATIONS = 50;

export interface ConvertOptions {
  /** The source's name, the first part of every tool name. */
  source: string;
  /** Operation patterns (operation-pattern.ts); absent: every operation. */
  include?: string[];
  exclude?: string[];
}

export type ConvertResult = { ok: true; spec: ConvertedSpec } | { ok: false; reason: string };

/**
 * The operations of `doc` as tools of `options.source`, and a problem line for each one left
 * out or simplified; a spec that cannot be converted at all is refused with the reason.
 *
 * @example
 * const loaded = await loadSpec(text);
 * if (loaded.ok) await convertSpec(loaded.doc, { source: "petstore", include: ["tag:pets"] });
 */
export async function convertSpec(doc: Record<string, unknown>, options: ConvertOptions): Promise<ConvertResult> {
  const version = specVersion(doc);
  if (version === undefined) return { ok: false, reason: "the document is not OpenAPI 3.0, 3.1 or Swagger 2.0" };
  const selected = compileOperationSelection(options.include, options.exclude);
  const inputs = specInputs(doc, selected);
  if (!inputs.ok) return inputs;
  const { servers, problems } = specServers(inputs.doc);
  let upgraded: object;
  try {
    upgraded = upgrade(inputs.doc, "3.1");
  } catch (error) {
    return { ok: false, reason: `the spec could not be read as OpenAPI 3.1: ${error instanceof Error ? error.message.slice(0, 300) : String(error)}` };
  }
  const resolved = await resolveSpecRefs(upgraded as Record<string, unknown>);
  if (!resolved.ok) return resolved;
  const operations = await convertOperations(resolved.doc, resolved.refNames, options.source, selected, problems);
  return { ok: true, spec: { specVersion: version, title: titleOf(doc, options.source), servers, operations, problems: capped(problems) } };
}

async function convertOperations(
  doc: Record<string, unknown>,
  refNames: ReadonlyMap<object, string>,
  source: string,
  selected: (operation: OperationRef) => boolean,
  problems: string[],
): Promise<OpenApiOperation[]> {
  const namer = new OperationNamer(source);
  const operations: OpenApiOperation[] = [];
  let considered = 0;
  let overCap = 0;
  let values = 0;
  for (const [path, item] of Object.entries(isPlainRecord(doc.paths) ? doc.paths : {})) {
    if (!isPlainRecord(item)) continue;
    if (typeof item[UNRESOLVED_REF] === "string") {
      problems.push(`${path}: skipped: ${item[UNRESOLVED_REF]}`);
      continue;
    }
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isPlainRecord(operation)) continue;
      const { operationId, tags } = operationRef(method, path, operation);
      // Selected again after resolution: a path item given by $ref was not visible to the first selection.
      if (!selected({ operationId, method, path, tags })) continue;
      if (++considered > MAX_SOURCE_OPERATIONS || values > MAX_SOURCE_SCHEMA_VALUES) {
        overCap += 1;
        continue;
      }
      if (considered % SLICE_OPERATIONS === 0) await pause();
      const label = operationLabel(method, path, operationId);
      const named = namer.name(operationId, method, path);
      if (named.problem !== undefined) problems.push(named.problem);
      if (named.name === undefined) continue;
      const converted = convertGuarded({ name: named.name, method, path, operation, pathParameters: item.parameters, tags: [...tags], refNames });
      values += converted.values;
      if (!converted.ok) {
        problems.push(`${label}: skipped: ${converted.problem}`);
        continue;
      }
      operations.push(converted.operation);
      for (const line of converted.dropped) problems.push(`${label}: ${line}`);
    }
  }
  if (overCap > 0) {
    problems.push(
      values > MAX_SOURCE_SCHEMA_VALUES
        ? `${overCap} operations were left out: the ones before them already hold ${MAX_SOURCE_SCHEMA_VALUES} schema values, all a source may (narrow include)`
        : `${overCap} more operations were selected than the ${MAX_SOURCE_OPERATIONS} a source may offer; they were left out (narrow include)`,
    );
  }
  return operations;
}

/**
 * convertOperation, with anything it throws made the operation's problem. Every shape it reads
 * is checked first; this is for a spec reaching a path no test has, so that one operation's
 * defect costs that operation, not the source (or a 500 at run time).
 */
function convertGuarded(input: OperationInput): ConvertedOperation {
  try {
    return convertOperation(input);
  } catch (error) {
    return { ok: false, problem: `it could not be converted (${error instanceof Error ? error.message.slice(0, 200) : String(error)})`, values: 0 };
  }
}

function operationLabel(method: HttpMethod, path: string, operationId: string | undefined): string {
  const route = `${method.toUpperCase()} ${cut(path, 200)}`;
  return operationId === undefined ? route : `${route} (${cut(operationId, 100)})`;
}

function titleOf(doc: Record<string, unknown>, source: string): string {
  const title = isPlainRecord(doc.info) ? doc.info.title : undefined;
  return typeof title === "string" && title.trim() !== "" ? cut(title.trim(), 200) : source;
}

function capped(problems: string[]): string[] {
  if (problems.length <= MAX_PROBLEMS) return problems;
  return [...problems.slice(0, MAX_PROBLEMS), `and ${problems.length - MAX_PROBLEMS} more problems`];
}

// setTimeout, not workerd's scheduler.wait: the build-time generator runs this in Node too.
function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
