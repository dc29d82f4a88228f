// Bindings the test configuration (vitest.config.ts) adds to the Worker's own. Optional, so the
// Worker's Env and the test Env stay assignable to each other.
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS?: import("cloudflare:test").D1Migration[];
  }
}
