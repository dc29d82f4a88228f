// Bindings the test configuration (vitest.config.ts) adds to the Worker's own.
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
  }
}
