/** Values the test configuration (vitest.config.ts) gives the Worker under test, shared with the tests. */
/** The bootstrap admin token the Worker under test is given (ADMIN_TOKEN). */
export const TEST_ADMIN_TOKEN = "tg_test_admin_token_0123456789abcdef0123456789";

/** The text of the one rejection a test leaves unhandled on purpose (see vitest.config.ts). */
export const STRAY_REJECTION_MARK = "deliberate stray rejection";

/** The secret every webhook under test is given (HOOK_*_SECRET); the upstream stand-in checks callbacks with it. */
export const TEST_WEBHOOK_SECRET = "whsec_test_0123456789abcdef";
/**
 * Loopback ports of the real server-everything the federation tests start, picked per run
 * (run-ports.ts): from process.env in Node, and from the bindings workerd puts in its process.env.
 */
const runEnv = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
function runPort(name: string): number {
  const port = Number(runEnv[name]);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`${name} is not set: vitest.config.ts picks it (test/support/run-ports.ts)`);
  return port;
}
export const EVERYTHING_PORT = runPort("TOOLGATE_EVERYTHING_PORT");
export const EVERYTHING_SSE_PORT = runPort("TOOLGATE_EVERYTHING_SSE_PORT");

/** OUTBOUND_ALLOW for the federation tests: exactly those two loopback targets. */
export const TEST_OUTBOUND_ALLOW = `127.0.0.1:${EVERYTHING_PORT},127.0.0.1:${EVERYTHING_SSE_PORT}`;

/** Host of the scripted MCP server in test/support/fake-mcp-server.ts. */
export const FAKE_MCP_HOST = "mcp.upstream.test";
/** Host of the control routes that stop and start server-everything from a test. */
export const EVERYTHING_CONTROL_HOST = "everything.control.test";

/** Host of real OpenAPI specs served from disk (spec-files.ts): `/github.json` is GitHub's REST description. */
export const SPEC_FILES_HOST = "specs.upstream.test";

/** Starts a loopback MCP server that requires OAuth (oauth-mcp-server.ts): GET /start answers {port}. */
export const OAUTH_MCP_CONTROL_HOST = "oauth-mcp.control.test";

/** MCP_TOKEN_KEY for the tests of toolgate's OAuth sign-in at remote servers. */
export const TEST_MCP_TOKEN_KEY = "test-mcp-token-key-0123456789abcdef0123456789abcdef";
/** toolgate's client at the OAuth MCP server's authorization server for token exchange (oauth-mcp-server.ts). */
export const TEST_EXCHANGE_CLIENT = { id: "toolgate-exchange", secret: "test-exchange-secret-0123456789" } as const;
/** One token exchange as that authorization server received it (its control endpoint lists them). */
export interface ExchangeRecord {
  subject: string;
  subjectType: string;
  resource: string | undefined;
  audience: string | undefined;
  /** The access token issued, or empty when refused. */
  issued: string;
}
/**
 * The scripted OpenAI-compatible model (test/support/model-server.ts): the Worker under test is
 * configured with MODEL_BASE_URL on this host, which the outbound stand-in forwards to the real
 * HTTP server on a loopback port chosen by the system (port 0).
 */
export const MODEL_HOST = "model.test";
export const TEST_MODEL_NAME = "scripted-model";
export const TEST_MODEL_KEY = "sk-test-model-key";
