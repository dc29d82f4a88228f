-- The audit log: one row per tool call, whatever its outcome (src/audit/; docs/storage.md).
-- Written only by src/audit/write-audit-records.ts, with ON CONFLICT (id) DO NOTHING so a
-- redelivered queue message never makes a second row. Rows older than AUDIT_RETENTION_DAYS are
-- deleted by the daily cron (src/audit/retention.ts).
CREATE TABLE audit_log (
  id                  TEXT    PRIMARY KEY,           -- random UUID, made once per call
  at                  INTEGER NOT NULL,              -- when the call ended, epoch ms
  key_id              TEXT    NOT NULL,
  session_id          TEXT    NOT NULL,
  tool_call_id        TEXT    NOT NULL,
  tool                TEXT    NOT NULL,
  toolset             TEXT,
  arguments           TEXT    NOT NULL,              -- canonical JSON, secrets redacted, <= 4 KiB
  arguments_truncated INTEGER NOT NULL,              -- 1: `arguments` is a {"$truncated":true,...} preview
  arguments_sha256    TEXT    NOT NULL,              -- of the whole redacted canonical JSON
  coercions           TEXT    NOT NULL,              -- JSON array of {path, from, to}, first 20
  coercion_count      INTEGER NOT NULL,
  policy_decision     TEXT,
  policy_rule         TEXT,
  approval_id         TEXT,
  status              TEXT    NOT NULL,              -- ok, error, blocked, timed_out, pending_approval, approved, denied, expired
  error_code          TEXT,
  attempts            INTEGER NOT NULL,
  duration_ms         INTEGER NOT NULL,
  result_chars        INTEGER NOT NULL,
  truncated           INTEGER NOT NULL
) STRICT;

-- Every listing is newest first by (at, id), the cursor's order; each filter has an index that
-- ends in (at, id) so a filtered page is an index range scan, not a sort.
-- Admin listing with no filter, stats over a window, and the retention delete.
CREATE INDEX audit_log_at ON audit_log (at, id);
-- Every non-admin query is scoped to its own key.
CREATE INDEX audit_log_key_at ON audit_log (key_id, at, id);
CREATE INDEX audit_log_session_at ON audit_log (session_id, at, id);
-- The tool filter and per-tool stats.
CREATE INDEX audit_log_tool_at ON audit_log (tool, at, id);
CREATE INDEX audit_log_status_at ON audit_log (status, at, id);
-- Only failed calls have a code; a partial index skips the (majority) rows without one.
CREATE INDEX audit_log_error_code_at ON audit_log (error_code, at, id) WHERE error_code IS NOT NULL;
