-- Approvals of risky tool calls (src/approvals/; docs/storage.md). The Session Durable Object of
-- each session is the source of truth; this table is its index, written by the object on every
-- change (a row's `version` only grows, so a late write never undoes a newer one). It serves the
-- approvals page's listings across sessions and the id -> session lookup of /v1/approvals/{id}.
CREATE TABLE approvals (
  id                TEXT    PRIMARY KEY,             -- random UUID
  session_id        TEXT    NOT NULL,
  tool_call_id      TEXT    NOT NULL,
  tool              TEXT    NOT NULL,
  arguments         TEXT    NOT NULL,                -- canonical JSON, secrets redacted
  arguments_sha256  TEXT    NOT NULL,                -- of `arguments`, as the audit log hashes them
  requested_by      TEXT    NOT NULL,                -- key id
  requested_at      INTEGER NOT NULL,                -- epoch ms
  expires_at        INTEGER NOT NULL,                -- epoch ms
  status            TEXT    NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired')),
  scope             TEXT    CHECK (scope IS NULL OR scope IN ('once', 'session')),
  decided_by        TEXT,                            -- key id of the approver
  decided_at        INTEGER,
  reason            TEXT,
  result_status     TEXT,                            -- ok | error, once the approved call ran
  result_error_code TEXT,
  result_content    TEXT,                            -- the tool message the model reads
  version           INTEGER NOT NULL
) STRICT;

-- The page lists pending approvals newest first; a session's approvals are listed for the agent.
CREATE INDEX approvals_status_requested ON approvals (status, requested_at, id);
CREATE INDEX approvals_session_requested ON approvals (session_id, requested_at, id);
CREATE INDEX approvals_requested ON approvals (requested_at, id);

-- Every decision is in the audit log: who, when, with which scope and reason. NULL on rows of
-- calls nobody decided.
ALTER TABLE audit_log ADD COLUMN decided_by TEXT;
ALTER TABLE audit_log ADD COLUMN decided_at INTEGER;
ALTER TABLE audit_log ADD COLUMN decision_scope TEXT;
ALTER TABLE audit_log ADD COLUMN decision_reason TEXT;
