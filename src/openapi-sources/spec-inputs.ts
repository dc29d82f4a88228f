/**
 * The part of a spec conversion reads: operations' parameters and request bodies and what they
 * reference, as a fresh copy. Responses, examples, links and callbacks are most of a real spec
 * (GitHub's, dereferenced with its responses, is 73 MB) and a tool needs none of them, so they
 * are dropped before anything walks the document; the copy leaves the caller's document
 * untouched by the upgrader and the dereferencer, which both edit in place.
 */

import { isPlainRecord } from "../arguments/coerce-scalars.ts";
import { HTTP_METHODS, type HttpMethod } from "./operation.ts";
import type { OperationRef } from "./operation-pattern.ts";
import { pruneComponents } from "./prune-components.ts";

/**
 * Levels the document may nest. An input schema is held to MAX_ARGUMENT_DEPTH (64) levels once
 * resolved, and a schema sits about 8 levels into the document (paths, path, method,
 * requestBody, content, media type, schema), so a document nested deeper could not give a usable
 * tool. The cap also bounds the recursion of the upgrader and the dereferencer that walk it next.
 */
export const MAX_SPEC_DEPTH = 100;

/**
 * Values (object members and array elements) the kept part may hold. MAX_SPEC_CHARS already
 * bounds the text; this bounds what YAML anchors that stayed under their alias limit can still
 * repeat. GitHub's spec keeps about 0.6 million.
 */
export const MAX_SPEC_VALUES = 3_000_000;

// What a tool's inputs can never need; dropping them here keeps the later walks small.
const COMPONENTS_DROPPED = new Set(["responses", "examples", "headers", "links", "callbacks", "securitySchemes"]);
const OPERATION_DROPPED = new Set(["responses", "callbacks", "security", "servers", "externalDocs"]);
// Examples of parameters and media types may `$ref` components/examples, which is dropped.
const EXAMPLE_KEYS = ["example", "examples", "x-example", "x-examples"];
const METHODS: ReadonlySet<string> = new Set(HTTP_METHODS);

export type SpecInputs = { ok: true; doc: Record<string, unknown> } | { ok: false; reason: string };

/**
 * A copy of what `doc` says about the inputs of the operations `selected` keeps, or why the
 * document is too big to walk. Selecting here, before anything is resolved, means a source that
 * includes a few operations of a large spec resolves only what those few reach.
 */
export function specInputs(doc: Record<string, unknown>, selected: (operation: OperationRef) => boolean = () => true): SpecInputs {
  const slim: Record<string, unknown> = {};
  for (const key of ["swagger", "openapi", "info", "servers", "host", "basePath", "schemes", "consumes", "definitions"]) {
    if (key in doc) slim[key] = doc[key];
  }
  if (isPlainRecord(doc.parameters)) slim.parameters = mapValues(doc.parameters, withoutExamples);
  if (isPlainRecord(doc.components)) slim.components = slimComponents(doc.components);
  if (isPlainRecord(doc.paths)) {
    const paths: Record<string, unknown> = {};
    for (const [path, item] of Object.entries(doc.paths))
      paths[path] = slimPathItem(item, (method, operation) => selected(operationRef(method, path, operation)));
    slim.paths = paths;
  }
  const copy = boundedCopy(slim);
  if (typeof copy === "string") return { ok: false, reason: copy };
  pruneComponents(copy as Record<string, unknown>);
  return { ok: true, doc: copy as Record<string, unknown> };
}

function slimComponents(components: Record<string, unknown>): Record<string, unknown> {
  const slim: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(components)) {
    if (COMPONENTS_DROPPED.has(key) || !isPlainRecord(value)) continue;
    if (key === "parameters") slim[key] = mapValues(value, withoutExamples);
    else if (key === "requestBodies") slim[key] = mapValues(value, slimBody);
    else if (key === "pathItems") slim[key] = mapValues(value, (item) => slimPathItem(item, () => true));
    else slim[key] = value;
  }
  return slim;
}

function slimPathItem(item: unknown, keep: (method: HttpMethod, operation: unknown) => boolean): unknown {
  if (!isPlainRecord(item)) return item;
  const slim: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    if (key === "parameters" && Array.isArray(value)) slim[key] = value.map(withoutExamples);
    else if (METHODS.has(key)) {
      if (keep(key as HttpMethod, value)) slim[key] = slimOperation(value);
    } else if (key === "$ref" || key === "summary" || key === "description") slim[key] = value;
  }
  return slim;
}

function slimOperation(operation: unknown): unknown {
  if (!isPlainRecord(operation)) return operation;
  const slim: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(operation)) {
    if (OPERATION_DROPPED.has(key) || key.startsWith("x-")) continue;
    if (key === "parameters" && Array.isArray(value)) slim[key] = value.map(withoutExamples);
    else if (key === "requestBody") slim[key] = slimBody(value);
    else slim[key] = value;
  }
  return slim;
}

function slimBody(body: unknown): unknown {
  if (!isPlainRecord(body) || !isPlainRecord(body.content)) return body;
  // Encoding objects' headers may $ref components/headers, which is dropped; a call needs no encoding hints from here.
  const content = mapValues(body.content, (media) =>
    isPlainRecord(media) ? { ...(withoutExamples(media) as Record<string, unknown>), encoding: undefined } : media,
  );
  return { ...body, content };
}

/** What a pattern sees of an operation; the same fields convert-spec.ts reads after resolution. */
export function operationRef(method: HttpMethod, path: string, operation: unknown): OperationRef {
  const record = isPlainRecord(operation) ? operation : {};
  const operationId = typeof record.operationId === "string" && record.operationId !== "" ? record.operationId : undefined;
  const tags = Array.isArray(record.tags) ? record.tags.filter((tag): tag is string => typeof tag === "string") : [];
  return { operationId, method, path, tags };
}

function withoutExamples(value: unknown): unknown {
  if (!isPlainRecord(value)) return value;
  const slim = { ...value };
  for (const key of EXAMPLE_KEYS) delete slim[key];
  return slim;
}

/**
 * A plain copy of `root` (JSON values only; `undefined` members left out), or why not: deeper
 * than MAX_SPEC_DEPTH or holding more than MAX_SPEC_VALUES. Iterative, with its own stack, and
 * it stops at the first cap, so a hostile document costs at most the caps. Objects YAML aliases
 * share become separate copies, so no later step meets a cycle the text did not spell as `$ref`.
 */
function boundedCopy(root: unknown): unknown {
  const top: Record<string, unknown> = {};
  const pending: Array<{ from: unknown; into: Record<string, unknown> | unknown[]; key: string | number; depth: number }> = [
    { from: root, into: top, key: "root", depth: 1 },
  ];
  let values = 0;
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { from, into, key, depth } = item;
    if (typeof from !== "object" || from === null) {
      (into as Record<string | number, unknown>)[key] = from;
      continue;
    }
    if (depth > MAX_SPEC_DEPTH) return `the spec nests deeper than ${MAX_SPEC_DEPTH} levels; no schema that deep can become a tool's input`;
    const entries = Array.isArray(from) ? from.map((value, index) => [index, value] as const) : Object.entries(from);
    values += entries.length;
    if (values > MAX_SPEC_VALUES) return `the spec's operations and schemas hold more than ${MAX_SPEC_VALUES} values; trim it to the operations you need`;
    const copy: Record<string, unknown> | unknown[] = Array.isArray(from) ? new Array<unknown>(from.length) : {};
    (into as Record<string | number, unknown>)[key] = copy;
    // Pushed last to first, so each object's copy gets its keys in the original order.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [childKey, child] = entries[i] as readonly [string | number, unknown];
      if (child === undefined) continue;
      // A member named __proto__ (JSON.parse makes it an own key) must stay a member, not become the copy's prototype.
      if (childKey === "__proto__") Object.defineProperty(copy, childKey, { value: undefined, enumerable: true, writable: true, configurable: true });
      pending.push({ from: child, into: copy, key: childKey, depth: depth + 1 });
    }
  }
  return top.root;
}

function mapValues(record: Record<string, unknown>, map: (value: unknown) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) out[key] = map(value);
  return out;
}
