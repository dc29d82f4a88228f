/**
 * API keys in D1 (table `api_keys`, migrations/0002_api_keys.sql, docs/storage.md). This module
 * is the only code that knows the column names; everything else sees `ApiKeyRecord`.
 */
import { z } from "zod";
import { displayPrefix, generateApiKey } from "./key-format.ts";
import { hashApiKey } from "./key-hash.ts";
import { KEY_SCOPES, type KeyScope, type Principal, ROLES, type Role, type ToolPolicy } from "./principal.ts";

/** The D1 table holding API keys, and the OAuth grants made on the consent page (migration 0008). */
export const API_KEYS_TABLE = "api_keys";

/** `key`: a bearer key made by POST /v1/keys; `oauth_grant`: a person's consent to an MCP client (src/oauth/). */
export const KEY_KINDS = ["key", "oauth_grant"] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

/** A key as the admin API shows it: everything but the key and its digest. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  role: Role;
  /** The key's first characters, for recognition. */
  prefix: string;
  toolsets: string[] | null;
  policy: ToolPolicy;
  rateLimitPerMinute: number | null;
  scopes: KeyScope[];
  createdAt: string;
  createdBy: string;
  revokedAt: string | null;
  kind: KeyKind;
  /** The OAuth client a grant was given to; null for a key. */
  oauthClientId: string | null;
}

export interface NewApiKey {
  name: string;
  role: Role;
  toolsets: readonly string[] | null;
  policy: ToolPolicy;
  rateLimitPerMinute: number | null;
  scopes: readonly KeyScope[];
  createdBy: string;
}

// Rows are written only by this module, but a hand-edited row must fail loudly, not authenticate
// with a half-read policy. Lazy: built at the first key read, not at every isolate's start-up.
const RowSchema = z.lazy(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    role: z.enum(ROLES),
    key_prefix: z.string(),
    toolsets: z.string().nullable(),
    policy_mode: z.enum(["whitelist", "deny"]),
    policy_patterns: z.string(),
    rate_limit_per_minute: z.number().int().positive().nullable(),
    created_at: z.string(),
    created_by: z.string(),
    revoked_at: z.string().nullable(),
    kind: z.enum(KEY_KINDS),
    oauth_client_id: z.string().nullable(),
    scopes: z.string(),
  }),
);
const StringList = z.lazy(() => z.array(z.string()));
const ScopeList = z.lazy(() => z.array(z.enum(KEY_SCOPES)));

const RECORD_COLUMNS =
  "id, name, role, key_prefix, toolsets, policy_mode, policy_patterns, rate_limit_per_minute, created_at, created_by, revoked_at, kind, oauth_client_id, scopes";

function toRecord(row: unknown): ApiKeyRecord {
  const r = RowSchema.parse(row);
  return {
    id: r.id,
    name: r.name,
    role: r.role,
    prefix: r.key_prefix,
    toolsets: r.toolsets === null ? null : StringList.parse(JSON.parse(r.toolsets)),
    policy: { mode: r.policy_mode, patterns: StringList.parse(JSON.parse(r.policy_patterns)) },
    rateLimitPerMinute: r.rate_limit_per_minute,
    scopes: ScopeList.parse(JSON.parse(r.scopes)),
    createdAt: r.created_at,
    createdBy: r.created_by,
    revokedAt: r.revoked_at,
    kind: r.kind,
    oauthClientId: r.oauth_client_id,
  };
}

/** Who a stored key authenticates as. */
export function principalOf(record: ApiKeyRecord): Principal {
  return {
    keyId: record.id,
    name: record.name,
    role: record.role,
    toolsets: record.toolsets,
    policy: record.policy,
    rateLimitPerMinute: record.rateLimitPerMinute,
    scopes: record.scopes,
  };
}

function newRecord(input: NewApiKey, prefix: string, kind: KeyKind, oauthClientId: string | null): ApiKeyRecord {
  return {
    id: crypto.randomUUID(),
    name: input.name,
    role: input.role,
    prefix,
    toolsets: input.toolsets === null ? null : [...new Set(input.toolsets)],
    policy: { mode: input.policy.mode, patterns: [...new Set(input.policy.patterns)] },
    rateLimitPerMinute: input.rateLimitPerMinute,
    scopes: [...new Set(input.scopes)],
    createdAt: new Date().toISOString(),
    createdBy: input.createdBy,
    revokedAt: null,
    kind,
    oauthClientId,
  };
}

/** Creates a key; the returned `key` is the only time its text exists outside the caller. */
export async function createApiKey(db: D1Database, input: NewApiKey): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = generateApiKey();
  const record = newRecord(input, displayPrefix(key), "key", null);
  await insertRecord(db, record, hashApiKey(key));
  return { key, record };
}

/** What a grant's prefix column shows in listings: there is no key to recognise. */
export const OAUTH_GRANT_PREFIX = "oauth";

/**
 * Records a person's consent to an OAuth client as a principal. Its `key_hash` is
 * `oauth-grant:<id>`, which no SHA-256 hex digest equals, so no bearer key can ever match it.
 */
export async function createOAuthGrant(db: D1Database, input: NewApiKey & { oauthClientId: string }): Promise<ApiKeyRecord> {
  const record = newRecord(input, OAUTH_GRANT_PREFIX, "oauth_grant", input.oauthClientId);
  await insertRecord(db, record, `oauth-grant:${record.id}`);
  return record;
}

async function insertRecord(db: D1Database, record: ApiKeyRecord, keyHash: string): Promise<void> {
  await db
    .prepare(`INSERT INTO ${API_KEYS_TABLE} (${RECORD_COLUMNS}, key_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .bind(
      record.id,
      record.name,
      record.role,
      record.prefix,
      record.toolsets === null ? null : JSON.stringify(record.toolsets),
      record.policy.mode,
      JSON.stringify(record.policy.patterns),
      record.rateLimitPerMinute,
      record.createdAt,
      record.createdBy,
      record.revokedAt,
      record.kind,
      record.oauthClientId,
      JSON.stringify(record.scopes),
      keyHash,
    )
    .run();
}

/** Every key, revoked ones included, oldest first. */
export async function listApiKeys(db: D1Database): Promise<ApiKeyRecord[]> {
  const { results } = await db.prepare(`SELECT ${RECORD_COLUMNS} FROM ${API_KEYS_TABLE} ORDER BY created_at, id`).all();
  return results.map(toRecord);
}

/** One key by id. */
export async function getApiKey(db: D1Database, id: string): Promise<ApiKeyRecord | undefined> {
  const row = await db.prepare(`SELECT ${RECORD_COLUMNS} FROM ${API_KEYS_TABLE} WHERE id = ?`).bind(id).first();
  return row === null ? undefined : toRecord(row);
}

/** The key with this digest, with the digest as stored (for the constant-time check). */
export async function findApiKeyByHash(db: D1Database, keyHash: string): Promise<{ record: ApiKeyRecord; keyHash: string } | undefined> {
  const row = await db.prepare(`SELECT ${RECORD_COLUMNS}, key_hash FROM ${API_KEYS_TABLE} WHERE key_hash = ?`).bind(keyHash).first();
  if (row === null) return undefined;
  return { record: toRecord(row), keyHash: z.string().parse(row.key_hash) };
}

/**
 * Revokes a key. Returns the record (with `revokedAt` set; an earlier revocation keeps its time)
 * or undefined when no key has this id.
 */
export async function revokeApiKey(db: D1Database, id: string, now: Date = new Date()): Promise<ApiKeyRecord | undefined> {
  await db.prepare(`UPDATE ${API_KEYS_TABLE} SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`).bind(now.toISOString(), id).run();
  return getApiKey(db, id);
}

/** What an admin may change on a key after it exists: whom it serves (name, role) stays. */
export interface KeyAccessChange {
  toolsets?: readonly string[] | null;
  policy?: ToolPolicy;
  rateLimitPerMinute?: number | null;
  scopes?: readonly KeyScope[];
}

/**
 * Changes a key's toolsets, policy, rate limit or scopes (only the fields given). Returns the record as
 * it is now, or undefined when no key has this id. A revoked key can be changed too: it stays
 * revoked.
 */
export async function updateApiKeyAccess(db: D1Database, id: string, change: KeyAccessChange): Promise<ApiKeyRecord | undefined> {
  const sets: string[] = [];
  const params: (string | number | null)[] = [];
  if (change.toolsets !== undefined) {
    sets.push("toolsets = ?");
    params.push(change.toolsets === null ? null : JSON.stringify([...new Set(change.toolsets)]));
  }
  if (change.policy !== undefined) {
    sets.push("policy_mode = ?", "policy_patterns = ?");
    params.push(change.policy.mode, JSON.stringify([...new Set(change.policy.patterns)]));
  }
  if (change.rateLimitPerMinute !== undefined) {
    sets.push("rate_limit_per_minute = ?");
    params.push(change.rateLimitPerMinute);
  }
  if (change.scopes !== undefined) {
    sets.push("scopes = ?");
    params.push(JSON.stringify([...new Set(change.scopes)]));
  }
  if (sets.length > 0)
    await db
      .prepare(`UPDATE ${API_KEYS_TABLE} SET ${sets.join(", ")} WHERE id = ?`)
      .bind(...params, id)
      .run();
  return getApiKey(db, id);
}
