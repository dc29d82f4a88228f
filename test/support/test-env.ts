/** Values the test configuration (vitest.config.ts) gives the Worker under test, shared with the tests. */
/** The bootstrap admin token the Worker under test is given (ADMIN_TOKEN). */
export const TEST_ADMIN_TOKEN = "tg_test_admin_token_0123456789abcdef0123456789";

/** The text of the one rejection a test leaves unhandled on purpose (see vitest.config.ts). */
export const STRAY_REJECTION_MARK = "deliberate stray rejection";

/** The secret every webhook under test is given (HOOK_*_SECRET); the upstream stand-in checks callbacks with it. */
export const TEST_HOOK_SECRET = "whsec_test_0123456789abcdef";
