import { applyD1Migrations, reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll } from "vitest";
// Every test file sees the registry as the Worker does: discovered tools imported once.
import "../src/registry/tools.gen.ts";
// The Run object imports its model client lazily (src/agent/run-step.ts), and the OpenAI SDK behind
// it took 1.7 s to load in a fresh workerd, 3.6-4.3 s with both cores busy: the first agent run of
// a workerd paid that inside its test's bounded wait (hook-runs failed 3 test:stress-style runs in
// 4). Loaded here, once per workerd (the module graph is shared), before any test's clock starts.
import "../src/agent/model-client.ts";
import { connectionCache } from "../src/mcp/federation/connections/connection-cache.ts";
import { federation } from "../src/mcp/federation/federation.ts";
import { openApiSources } from "../src/openapi-sources/runtime-sources.ts";
import { forgetBackgroundWork, installBackgroundLedger } from "./support/background-ledger.ts";
import { drainBackgroundWork } from "./support/drain-background-work.ts";

// A workerd serves its files one after another (vitest.config.ts, isolate: false), so each file
// starts by emptying every binding's storage and Durable Object (reset() also deletes their
// alarms and drops their instances) and migrating a fresh D1, and ends by waiting out the
// background work it started, which reset() would not stop (test/support/drain-background-work.ts).
// The audit shards' databases are emptied too, and migrated only by the files that use them
// (test/support/migrate-audit-shards.ts).
await reset();
forgetBackgroundWork();
// The module graph is shared too: what the isolate keeps of the storage just emptied goes with it.
federation.reset();
openApiSources.reset();
connectionCache.clear();
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS ?? []);

const background = env.TEST_BACKGROUND;
if (background !== undefined) {
  installBackgroundLedger(background);
  afterAll(() => drainBackgroundWork(background));
}
