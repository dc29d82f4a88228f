import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
// Every test file sees the registry as the Worker does: discovered tools imported once.
import "../src/registry/tools.gen.ts";

// Storage is isolated per test file, so each file starts from a freshly migrated D1.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS ?? []);
