/**
 * Test files that need a workerd of their own. Every other workerd test file runs in one shared
 * workerd (vitest project `worker`), which test/setup.ts empties of storage before each file but
 * whose loaded modules keep their isolate-wide state (caches, circuit breakers, registered remote
 * tools), as one Worker isolate serving many requests would. A file whose assertions need that
 * state untouched by other files goes here, and runs in project `worker-isolated`.
 */
export const FRESH_ISOLATE_FILES: string[] = [];
