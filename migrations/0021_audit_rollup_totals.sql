-- All-time totals of the audit rollups per (tool, key, error code): the daily cron folds hourly
-- rows older than the console's week (src/audit/fold-rollups.ts) into them and deletes those
-- rows, in one D1 batch, so GET /metrics sums a table that grows with the tools, keys and codes
-- in use rather than with every hour since the deployment began, and its counters never go down.
-- Columns as audit_rollups (0012) without the hour.
CREATE TABLE audit_rollup_totals (
  tool            TEXT    NOT NULL,
  key_id          TEXT    NOT NULL,
  error_code      TEXT    NOT NULL,  -- '' for calls without one
  calls           INTEGER NOT NULL,
  errors          INTEGER NOT NULL,
  duration_ms_sum INTEGER NOT NULL,
  duration_ms_max INTEGER NOT NULL,
  le_5 INTEGER NOT NULL, le_10 INTEGER NOT NULL, le_25 INTEGER NOT NULL, le_50 INTEGER NOT NULL,
  le_100 INTEGER NOT NULL, le_250 INTEGER NOT NULL, le_500 INTEGER NOT NULL, le_1000 INTEGER NOT NULL,
  le_2500 INTEGER NOT NULL, le_5000 INTEGER NOT NULL, le_10000 INTEGER NOT NULL, le_30000 INTEGER NOT NULL,
  PRIMARY KEY (tool, key_id, error_code)
) STRICT, WITHOUT ROWID;
