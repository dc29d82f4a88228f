/**
 * Where runtime OpenAPI sources live: KV, one record per source (small: configuration, pin and
 * status) and one record per converted spec (large: every operation's input schema), so an isolate
 * that only lists sources never parses a thousand operations.
 */
import { isPlainRecord } from "../arguments/coerce-scalars.ts";
import { OPENAPI_SOURCE_PREFIX, openApiOperationsKey, openApiSourceKey } from "../storage/keys.ts";
import type { ConvertedSpec } from "./operation.ts";
import { type OpenApiSourceConfig, openApiSourceConfigSchema } from "./source-config.ts";
import type { SpecChanges } from "./spec-changes.ts";
import type { UserOAuthEndpoints } from "./user-oauth.ts";

/** What a spec was when it was converted: enough to list a source without its operations. */
export interface SpecSummary {
  sha256: string;
  fetchedAt: number;
  specVersion: string;
  title: string;
  /** The base URL calls go to: the configured one, else the spec's first server. */
  baseUrl: string;
  operationCount: number;
  problems: string[];
  /** A `per_user` source's connection endpoints, the configuration's over the spec's (user-oauth.ts). */
  userOAuth?: UserOAuthEndpoints;
}

export interface StoredOpenApiSource {
  config: OpenApiSourceConfig;
  createdAt: number;
  updatedAt: number;
  /** The spec whose operations are the source's tools. */
  pinned: SpecSummary;
  /** A changed spec a refresh found, with what moved; its tools are not served until accepted. */
  pending?: SpecSummary & { changes: SpecChanges };
}

/**
 * One stored source; a record that is not JSON, or whose configuration or pin no longer
 * validates, is skipped, loudly, so one bad record never stops the others from being served.
 */
export async function readSource(kv: KVNamespace, name: string): Promise<StoredOpenApiSource | null> {
  const record = parseJson(await kv.get(openApiSourceKey(name), "text"));
  if (record === null) return null;
  const parsed = openApiSourceConfigSchema().safeParse(isPlainRecord(record) ? record.config : undefined);
  if (!parsed.success || !isStoredShape(record)) {
    console.error(`OpenAPI source record '${name}' in KV is invalid and ignored${parsed.success ? "" : `: ${parsed.error.message}`}`);
    return null;
  }
  return { ...record, config: parsed.data };
}

/** The record's own fields besides the configuration, which its schema checks. */
function isStoredShape(value: unknown): value is Omit<StoredOpenApiSource, "config"> {
  return (
    isPlainRecord(value) &&
    typeof value.createdAt === "number" &&
    typeof value.updatedAt === "number" &&
    isSummary(value.pinned) &&
    (value.pending === undefined || (isPlainRecord(value.pending) && isPlainRecord(value.pending.changes) && isSummary(value.pending)))
  );
}

const isConvertedSpec = (value: unknown): value is ConvertedSpec => isPlainRecord(value) && Array.isArray(value.operations) && Array.isArray(value.problems);

const isSummary = (value: unknown): value is SpecSummary =>
  isPlainRecord(value) && typeof value.sha256 === "string" && typeof value.baseUrl === "string" && Array.isArray(value.problems);

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Every stored source, sorted by name. */
export async function listSources(kv: KVNamespace): Promise<StoredOpenApiSource[]> {
  const found: StoredOpenApiSource[] = [];
  let cursor: string | undefined;
  do {
    const page: KVNamespaceListResult<unknown> = await kv.list({ prefix: OPENAPI_SOURCE_PREFIX, ...(cursor === undefined ? {} : { cursor }) });
    const records = await Promise.all(page.keys.map((key) => readSource(kv, key.name.slice(OPENAPI_SOURCE_PREFIX.length))));
    for (const record of records) if (record !== null) found.push(record);
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor !== undefined);
  return found.sort((a, b) => (a.config.name < b.config.name ? -1 : a.config.name > b.config.name ? 1 : 0));
}

export async function writeSource(kv: KVNamespace, record: StoredOpenApiSource): Promise<void> {
  await kv.put(openApiSourceKey(record.config.name), JSON.stringify(record));
}

/** A converted spec; null when it is missing or not the shape written (the source then lists it as a problem). */
export async function readOperations(kv: KVNamespace, name: string, specSha256: string): Promise<ConvertedSpec | null> {
  const spec = parseJson(await kv.get(openApiOperationsKey(name, specSha256), "text"));
  return isConvertedSpec(spec) ? spec : null;
}

export async function writeOperations(kv: KVNamespace, name: string, specSha256: string, spec: ConvertedSpec): Promise<void> {
  await kv.put(openApiOperationsKey(name, specSha256), JSON.stringify(spec));
}

/** Deletes a source and every converted spec it keeps. */
export async function deleteSource(kv: KVNamespace, record: StoredOpenApiSource): Promise<void> {
  const { name } = record.config;
  const hashes = new Set([record.pinned.sha256, ...(record.pending === undefined ? [] : [record.pending.sha256])]);
  await Promise.all([kv.delete(openApiSourceKey(name)), ...[...hashes].map((sha) => kv.delete(openApiOperationsKey(name, sha)))]);
}

export async function deleteOperations(kv: KVNamespace, name: string, specSha256: string): Promise<void> {
  await kv.delete(openApiOperationsKey(name, specSha256));
}
