-- Agent runs that ask the person, and search over past runs (issue 34; src/agent/run-question.ts,
-- src/agent/run-search.ts, tools/clarify.ts, tools/session-search.ts, docs/storage.md).
--
-- 1. `runs.status` may be `awaiting_input` (a run waiting on the answer to its agent's question).
--    SQLite cannot change a CHECK in place: the table is rebuilt with the same columns, rows and
--    indexes (0007, 0010), the new status added.
CREATE TABLE runs_0017 (
  id                TEXT    PRIMARY KEY,
  key_id            TEXT    NOT NULL,
  session_id        TEXT    NOT NULL,
  parent_run_id     TEXT,
  model             TEXT    NOT NULL,
  status            TEXT    NOT NULL CHECK (status IN ('running', 'awaiting_approval', 'awaiting_input', 'completed', 'failed', 'cancelled', 'limit_reached')),
  turns             INTEGER NOT NULL,
  tool_calls        INTEGER NOT NULL,
  prompt_tokens     INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  total_tokens      INTEGER NOT NULL,
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL
) STRICT;
INSERT INTO runs_0017 SELECT id, key_id, session_id, parent_run_id, model, status, turns, tool_calls, prompt_tokens, completion_tokens, total_tokens, created_at, updated_at FROM runs;
DROP TABLE runs;
ALTER TABLE runs_0017 RENAME TO runs;
CREATE INDEX runs_key ON runs (key_id, created_at);
CREATE INDEX runs_session ON runs (session_id, created_at);
CREATE INDEX runs_updated ON runs (updated_at);

-- 2. session_search: one document per finished run, its user messages, tool results and answer,
--    in an FTS5 table (D1 and local D1 both have FTS5). The plain table beside it holds who may
--    find the document (key_id) and its age, indexed, since an FTS5 table's other columns cannot be;
--    its `id` is the document's rowid in the FTS5 table.
CREATE TABLE run_search_docs (
  id         INTEGER PRIMARY KEY,
  run_id     TEXT    NOT NULL UNIQUE,
  key_id     TEXT    NOT NULL,
  session_id TEXT    NOT NULL,
  status     TEXT    NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX run_search_docs_key ON run_search_docs (key_id, updated_at);
-- The retention delete's range (run-retention.ts), on the same clock as the runs rows: a run's
-- document is written when it finishes, its last change, so its updated_at is the row's.
CREATE INDEX run_search_docs_updated ON run_search_docs (updated_at);

CREATE VIRTUAL TABLE run_search USING fts5 (body, tokenize = 'unicode61 remove_diacritics 2');
