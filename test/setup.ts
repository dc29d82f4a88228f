import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
// Every test file sees the registry as the Worker does: discovered tools imported once.
import "../src/registry/tools.gen.ts";

// Storage is isolated per test file (a workerd per file, vitest.config.ts), so each file starts
// from a freshly migrated D1.
// The audit shards' databases (test/audit/audit-shards.test.ts) too: migrations apply to every shard.
for (const db of [env.DB, env.DB_AUDIT_1, env.DB_AUDIT_2]) if (db !== undefined) await applyD1Migrations(db, env.TEST_MIGRATIONS ?? []);
