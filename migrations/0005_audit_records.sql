-- The audit log, redesigned so one record costs at most three rows written (issue 16; docs/scale.md).
--
-- D1 bills every B-tree a row enters as a row written. audit_log's row entered eight: the table,
-- the automatic index of its random TEXT primary key, and six secondary indexes. Here:
-- - WITHOUT ROWID, keyed by (at, rid): the table IS its time-ordered primary key, so there is no
--   second B-tree for the key, and every time window is a range of it. `rid` is 53 random bits
--   made once per record (a JavaScript-safe integer), so two records of one millisecond differ,
--   and a redelivered record carries the same (at, rid) and is skipped (ON CONFLICT DO NOTHING).
-- - Two secondary indexes: the caller's key (every non-admin query is scoped to it) and the
--   session (a conversation's or a webhook delivery's timeline). A secondary index of a WITHOUT
--   ROWID table carries the primary key, so both end in (at, rid), the listing order.
-- - Tool, status and error code have no index: stats read a time window of the primary key or of
--   the key's index, and a listing filtered by them scans a bounded number of rows per page
--   (src/audit/list-audit.ts). Each of those indexes cost a row written on every call.
-- Total: table + 2 indexes = 3 rows written per record.
CREATE TABLE audit_records (
  at                  INTEGER NOT NULL,              -- when the call ended, epoch ms
  rid                 INTEGER NOT NULL CHECK (rid BETWEEN 0 AND 9007199254740991),
  key_id              TEXT    NOT NULL,
  session_id          TEXT    NOT NULL,
  tool_call_id        TEXT    NOT NULL,
  tool                TEXT    NOT NULL,
  toolset             TEXT,
  arguments           TEXT    NOT NULL,              -- canonical JSON, secrets redacted, <= 4 KiB
  arguments_truncated INTEGER NOT NULL,
  arguments_sha256    TEXT    NOT NULL,
  coercions           TEXT    NOT NULL,              -- JSON array of {path, from, to}, first 20
  coercion_count      INTEGER NOT NULL,
  policy_decision     TEXT,
  policy_rule         TEXT,
  approval_id         TEXT,
  status              TEXT    NOT NULL CHECK (status IN ('ok', 'error', 'blocked', 'timed_out', 'pending_approval', 'approved', 'denied', 'expired')),
  error_code          TEXT,
  error_message       TEXT,                          -- sanitised, capped; failed calls only
  attempts            INTEGER NOT NULL,
  duration_ms         INTEGER NOT NULL,
  result_chars        INTEGER NOT NULL,
  truncated           INTEGER NOT NULL,
  decided_by          TEXT,
  decided_at          INTEGER,
  decision_scope      TEXT,
  decision_reason     TEXT,
  PRIMARY KEY (at, rid)
) STRICT, WITHOUT ROWID;

CREATE INDEX audit_records_key ON audit_records (key_id, at, rid);
CREATE INDEX audit_records_session ON audit_records (session_id, at, rid);

-- Existing rows move over. Their TEXT ids become a fresh rid each (the ids were random and
-- nothing refers to them); the migration runs as one transaction, so no row is copied twice.
-- Until it has run, the Worker keeps reading and writing audit_log (src/audit/audit-layout.ts).
INSERT INTO audit_records (
  at, rid, key_id, session_id, tool_call_id, tool, toolset, arguments, arguments_truncated, arguments_sha256,
  coercions, coercion_count, policy_decision, policy_rule, approval_id, status, error_code, error_message,
  attempts, duration_ms, result_chars, truncated, decided_by, decided_at, decision_scope, decision_reason
)
SELECT
  at, (random() & 9007199254740991), key_id, session_id, tool_call_id, tool, toolset, arguments, arguments_truncated, arguments_sha256,
  coercions, coercion_count, policy_decision, policy_rule, approval_id, status, error_code, NULL,
  attempts, duration_ms, result_chars, truncated, decided_by, decided_at, decision_scope, decision_reason
FROM audit_log;

DROP TABLE audit_log;
