-- Agent runs (issue 14; src/agent/, docs/storage.md).
--
-- Every audit record of a call an agent run made carries the run's id. A nullable column added
-- at the end: rows written before it, and calls clients send themselves, have none. No index:
-- a run's records are read through its session's index (session_id, at, rid) and filtered.
ALTER TABLE audit_records ADD COLUMN run_id TEXT;

-- The index of runs, one row per run, written by its Run Durable Object (the source of truth)
-- at every status change: listings (GET /v1/runs?status=&session_id=) and token usage per key.
CREATE TABLE runs (
  id                TEXT    PRIMARY KEY,
  key_id            TEXT    NOT NULL,
  session_id        TEXT    NOT NULL,
  parent_run_id     TEXT,
  model             TEXT    NOT NULL,
  status            TEXT    NOT NULL CHECK (status IN ('running', 'awaiting_approval', 'completed', 'failed', 'cancelled', 'limit_reached')),
  turns             INTEGER NOT NULL,
  tool_calls        INTEGER NOT NULL,
  prompt_tokens     INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  total_tokens      INTEGER NOT NULL,
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL
) STRICT;

CREATE INDEX runs_key ON runs (key_id, created_at);
CREATE INDEX runs_session ON runs (session_id, created_at);
