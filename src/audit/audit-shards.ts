/**
 * The audit log past one D1 database (docs/scale.md). `AUDIT_SHARDS` names extra D1 bindings
 * (`"DB_AUDIT_1,DB_AUDIT_2"`); with them, the audit log lives in DB and those, and each record goes
 * to the database chosen by a stable hash of its key_id, so one key's records (everything a
 * non-admin reads) are in one database. Unset, DB is the only shard and nothing here costs a
 * thing: writes bind the queue's rows unparsed, as before.
 *
 * The shard list is part of the storage contract: changing its length moves keys to other shards,
 * whose earlier records their key-scoped reads then miss (admin reads, which fan out, still see
 * them). Append a shard only with a copy of the moved keys' records (docs/scale.md).
 */
import { ConfigError } from "../config/config.ts";
import { type AuditDatabase, writeAuditRowLists } from "./write-audit-records.ts";

/** The bindings audit storage reads: DB, and the optional shard list naming more D1 bindings. */
export interface AuditShardEnv {
  DB: AuditDatabase;
  AUDIT_SHARDS?: string;
}

/** key_id is this column of a row (AUDIT_COLUMNS order). */
const KEY_COLUMN = 2;

const cache = new WeakMap<object, readonly AuditDatabase[]>();

/**
 * The audit databases, DB first, then each AUDIT_SHARDS binding in the listed order. Throws
 * ConfigError naming a listed binding that is not a D1 database.
 */
export function auditShards(env: AuditShardEnv): readonly AuditDatabase[] {
  const cached = cache.get(env);
  if (cached !== undefined) return cached;
  const names = (env.AUDIT_SHARDS ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  // A binding listed twice (or DB itself) would be read, counted and archived twice.
  const repeated = names.find((name, i) => name === "DB" || names.indexOf(name) !== i);
  if (repeated !== undefined) {
    throw new ConfigError(
      `Invalid toolgate configuration: AUDIT_SHARDS lists ${JSON.stringify(repeated)} ${repeated === "DB" ? "(DB is always the first shard)" : "twice"}; list each extra D1 binding once`,
    );
  }
  const shards = [env.DB, ...names.map((name) => shardBinding(env, name))];
  cache.set(env, shards);
  return shards;
}

function shardBinding(env: AuditShardEnv, name: string): AuditDatabase {
  const binding: unknown = Reflect.get(env, name);
  const db = binding as Partial<AuditDatabase> | undefined;
  if (typeof db?.prepare !== "function" || typeof db.batch !== "function") {
    throw new ConfigError(
      `Invalid toolgate configuration: AUDIT_SHARDS lists ${JSON.stringify(name)}, which is not a D1 binding; add a [[d1_databases]] with binding = "${name}" to wrangler.toml (and apply the migrations to it)`,
    );
  }
  return db as AuditDatabase;
}

/** The shard holding `keyId`'s records: FNV-1a of the key id, modulo the shard count. */
export function shardIndex(keyId: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < keyId.length; i++) {
    hash ^= keyId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}

/** A shard and its place in the list (its archive folder, audit-archive-keys.ts). */
export interface AuditShard {
  db: AuditDatabase;
  index: number;
}

/** The shards a read scoped to `keyId` needs (its own), or every shard for an unscoped one. */
export function shardsToRead(env: AuditShardEnv, keyId?: string): AuditShard[] {
  const shards = auditShards(env);
  if (keyId === undefined) return shards.map((db, index) => ({ db, index }));
  const index = shardIndex(keyId, shards.length);
  return [{ db: shards[index] ?? env.DB, index }];
}

/** The database of one key's records. */
export function shardOf(env: AuditShardEnv, keyId: string): AuditDatabase {
  const shards = auditShards(env);
  return shards[shardIndex(keyId, shards.length)] ?? env.DB;
}

/**
 * writeAuditRowLists across the shards: unsharded, the row lists go to DB as they are; sharded,
 * they are parsed (the price of sharding: about a microsecond per row) and each shard gets its
 * rows in one batch. Shards are written in parallel and each batch is atomic and idempotent, so
 * a failure anywhere rejects and the caller's retry rewrites only what is missing.
 */
export async function writeShardedRowLists(env: AuditShardEnv, rowLists: readonly string[]): Promise<number> {
  const shards = auditShards(env);
  if (shards.length === 1) return writeAuditRowLists(env.DB, rowLists);
  const perShard: string[][] = shards.map(() => []);
  for (const rows of rowLists) {
    if (rows === "") continue;
    for (const row of JSON.parse(`[${rows}]`) as unknown[][]) {
      perShard[shardIndex(String(row[KEY_COLUMN]), shards.length)]?.push(JSON.stringify(row));
    }
  }
  const written = await Promise.all(shards.map((db, i) => writeAuditRowLists(db, perShard[i] ?? [])));
  return written.reduce((sum, n) => sum + n, 0);
}
