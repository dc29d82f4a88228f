/**
 * The audit shards' test databases (DB_AUDIT_1, DB_AUDIT_2; vitest.config.ts), migrated for the
 * few files that use them as shards. Each file's setup migrates only DB (test/setup.ts): two
 * more databases for every file cost 100-160 ms a file, most of a minute of the suite.
 */
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

/** Applies the migrations to both shard databases; call in the file's beforeAll. */
export async function migrateAuditShards(): Promise<void> {
  for (const db of [env.DB_AUDIT_1, env.DB_AUDIT_2]) if (db !== undefined) await applyD1Migrations(db, env.TEST_MIGRATIONS ?? []);
}
