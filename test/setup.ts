import { applyD1Migrations, reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { federation } from "../src/mcp/federation/federation.ts";
// Every test file sees the registry as the Worker does: discovered tools imported once.
import "../src/registry/tools.gen.ts";

// Runs before every file. Files share one workerd and its loaded modules (vitest.config.ts), so
// each file starts from empty storage, as a file in a fresh workerd would: delete what the files
// before it stored (D1, KV, R2, Durable Objects), and forget the remote MCP servers the isolate
// synced from that storage (their tools stay registered, and the next sync is up to 30 s away).
await reset();
federation.reset();
// The audit shards' databases (test/audit/audit-shards.test.ts) too: migrations apply to every shard.
for (const db of [env.DB, env.DB_AUDIT_1, env.DB_AUDIT_2]) if (db !== undefined) await applyD1Migrations(db, env.TEST_MIGRATIONS ?? []);
