// Bindings the test configuration (vitest.config.ts) adds to the Worker's own. Optional, so the
// Worker's Env and the test Env stay assignable to each other.
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS?: import("cloudflare:test").D1Migration[];
    /** Extra D1 databases for the audit sharding tests (vitest.config.ts); AUDIT_SHARDS stays unset elsewhere. */
    DB_AUDIT_1?: D1Database;
    DB_AUDIT_2?: D1Database;
    /** wrangler.toml's queues and Durable Objects, for the teardown that drains a file's background work (test/setup.ts). */
    TEST_BACKGROUND?: import("./support/drain-background-work.ts").BackgroundBindings & {
      consumers: import("./support/background-ledger.ts").QueueConsumerSettings[];
    };
  }
}

// Vite's `?raw` imports (fixture files as text, e.g. test/fixtures/openapi/), without all of vite/client's globals.
declare module "*?raw" {
  const text: string;
  export default text;
}
