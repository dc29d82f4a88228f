import { applyD1Migrations, reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll } from "vitest";
// Every test file sees the registry as the Worker does: discovered tools imported once.
import "../src/registry/tools.gen.ts";
import { connectionCache } from "../src/mcp/federation/connections/connection-cache.ts";
import { federation } from "../src/mcp/federation/federation.ts";
import { openApiSources } from "../src/openapi-sources/runtime-sources.ts";
import { forgetBackgroundWork, installBackgroundLedger } from "./support/background-ledger.ts";
import { drainBackgroundWork } from "./support/drain-background-work.ts";

// A workerd serves its files one after another (vitest.config.ts, isolate: false), so each file
// starts by emptying every binding's storage and Durable Object (reset() also deletes their
// alarms and drops their instances) and migrating a fresh D1, and ends by waiting out the
// background work it started, which reset() would not stop (test/support/drain-background-work.ts).
// The audit shards' databases (test/audit/audit-shards.test.ts) too: migrations apply to every shard.
await reset();
forgetBackgroundWork();
// The module graph is shared too: what the isolate keeps of the storage just emptied goes with it.
federation.reset();
openApiSources.reset();
connectionCache.clear();
for (const db of [env.DB, env.DB_AUDIT_1, env.DB_AUDIT_2]) if (db !== undefined) await applyD1Migrations(db, env.TEST_MIGRATIONS ?? []);

const background = env.TEST_BACKGROUND;
if (background !== undefined) {
  installBackgroundLedger(background);
  afterAll(() => drainBackgroundWork(background));
}
