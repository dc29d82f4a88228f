/**
 * The Session Durable Object's SQLite tables (docs/storage.md). `CREATE ... IF NOT EXISTS` runs
 * in every constructor: it costs microseconds, and new objects need no separate set-up step.
 *
 * It never changes a table that exists, so this shape is frozen as first released (no earlier
 * shape was ever deployed: the per-key grants and call ids landed with the object itself). A
 * later change needs an upgrade step that existing objects run, keyed by a schema version kept
 * in the object, like a D1 migration.
 */

export const SESSION_APPROVALS_TABLE = "approvals";
export const SESSION_GRANTS_TABLE = "grants";
/**
 * Outbox of `approval_settled` messages for the hooks queue: a row is written in the same
 * synchronous step as the settled outcome and deleted once the queue took the message, so a
 * failed send is retried (by the alarm) instead of leaving the webhook delivery waiting forever.
 */
export const SESSION_HOOK_NOTICES_TABLE = "hook_notices";
/**
 * Approvals an agent run's call asked for (src/agent/): the run to wake when one settles. A new
 * table (created if missing), so objects made before it need no upgrade step.
 */
export const SESSION_RUN_WAKEUPS_TABLE = "run_wakeups";

/**
 * The todo tool's list of one key in this session (`todo:<keyId>`): JSON `TodoList` in the
 * object's synchronous KV storage. Per key, because session ids are chosen by callers and two
 * keys sending one id must not see or change each other's tasks.
 */
export const SESSION_TODO_KEY_PREFIX = "todo:";
export const sessionTodoKey = (keyId: string): string => `${SESSION_TODO_KEY_PREFIX}${keyId}`;

/**
 * The MCP resources one key subscribed to in this MCP session (`subscriptions:<keyId>`): a JSON
 * array of URIs in the object's synchronous KV storage, at most `MAX_SESSION_SUBSCRIPTIONS`.
 */
export const SESSION_SUBSCRIPTIONS_KEY_PREFIX = "subscriptions:";
export const sessionSubscriptionsKey = (keyId: string): string => `${SESSION_SUBSCRIPTIONS_KEY_PREFIX}${keyId}`;

export const SESSION_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS ${SESSION_APPROVALS_TABLE} (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  toolset TEXT,
  arguments TEXT NOT NULL,
  arguments_sha256 TEXT NOT NULL,
  call_arguments TEXT NOT NULL,
  binding_sha256 TEXT NOT NULL,
  requested_by TEXT NOT NULL,
  requested_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  status TEXT NOT NULL,
  scope TEXT,
  decided_by TEXT,
  decided_at INTEGER,
  reason TEXT,
  run_state TEXT NOT NULL,
  result_status TEXT,
  result_error_code TEXT,
  result_content TEXT,
  version INTEGER NOT NULL,
  -- Session ids are chosen by callers, so two keys may share one: a call id and a grant belong
  -- to the key that asked, never to whoever else sends the same session id.
  UNIQUE (requested_by, tool_call_id)
);
CREATE INDEX IF NOT EXISTS approvals_pending_expiry ON ${SESSION_APPROVALS_TABLE} (status, expires_at);
-- MCP sessions find a re-sent call by its arguments (findApprovalByBinding). An index, unlike a
-- column, can be added to objects that already exist by this same IF NOT EXISTS.
CREATE INDEX IF NOT EXISTS approvals_binding ON ${SESSION_APPROVALS_TABLE} (requested_by, tool, binding_sha256);
CREATE TABLE IF NOT EXISTS ${SESSION_GRANTS_TABLE} (
  tool TEXT NOT NULL,
  requested_by TEXT NOT NULL,
  approval_id TEXT NOT NULL,
  granted_by TEXT NOT NULL,
  granted_at INTEGER NOT NULL,
  PRIMARY KEY (tool, requested_by)
);
CREATE TABLE IF NOT EXISTS ${SESSION_RUN_WAKEUPS_TABLE} (
  approval_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  settled INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ${SESSION_HOOK_NOTICES_TABLE} (
  approval_id TEXT PRIMARY KEY,
  delivery_id TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  due_at INTEGER NOT NULL
);
`;
