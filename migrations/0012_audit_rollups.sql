-- Hourly rollups of the audit log (issue 32): what the console's overview and GET /metrics read,
-- instead of ranking every audit row of a window (about 550 ms of SQLite per view at 100,000
-- records, docs/scale.md).
--
-- Written by the one audit writer (src/audit/write-audit-records.ts) in the same D1 batch as the
-- rows, just before each INSERT: one upsert per (hour, tool, key, error code) that adds the batch's records
-- not yet in audit_records, which are exactly those the INSERT then stores (it skips the others,
-- ON CONFLICT DO NOTHING, 0005). So a redelivered record counts nothing twice, a batch that fails
-- leaves neither rows nor counts (a D1 batch is atomic), and concurrent batches are serialised by
-- D1. Cost: one row written per (hour, tool, key, error code) in a batch, not per record (a
-- trigger would have been one more per record: 4 instead of 3). Error codes share the row's key
-- rather than a table of their own, so one statement keeps every rollup.
--
-- Buckets are cumulative (Prometheus `le`): le_N counts calls with duration_ms <= N. The +Inf
-- bucket is `calls`. The bounds are AUDIT_ROLLUP_BUCKETS_MS in src/audit/audit-rollups.ts.
CREATE TABLE audit_rollups (
  hour            INTEGER NOT NULL,  -- start of the hour (UTC) the calls ended in, epoch ms
  tool            TEXT    NOT NULL,
  key_id          TEXT    NOT NULL,
  error_code      TEXT    NOT NULL,  -- '' for calls without one
  calls           INTEGER NOT NULL,
  errors          INTEGER NOT NULL,  -- status error or timed_out (FAILED_STATUSES)
  duration_ms_sum INTEGER NOT NULL,
  duration_ms_max INTEGER NOT NULL,
  le_5 INTEGER NOT NULL, le_10 INTEGER NOT NULL, le_25 INTEGER NOT NULL, le_50 INTEGER NOT NULL,
  le_100 INTEGER NOT NULL, le_250 INTEGER NOT NULL, le_500 INTEGER NOT NULL, le_1000 INTEGER NOT NULL,
  le_2500 INTEGER NOT NULL, le_5000 INTEGER NOT NULL, le_10000 INTEGER NOT NULL, le_30000 INTEGER NOT NULL,
  PRIMARY KEY (hour, tool, key_id, error_code)
) STRICT, WITHOUT ROWID;

-- Records already stored are counted once, here; from now on the triggers count new ones.
INSERT INTO audit_rollups (hour, tool, key_id, error_code, calls, errors, duration_ms_sum, duration_ms_max,
  le_5, le_10, le_25, le_50, le_100, le_250, le_500, le_1000, le_2500, le_5000, le_10000, le_30000)
SELECT at / 3600000 * 3600000, tool, key_id, COALESCE(error_code, ''), COUNT(*), SUM(status IN ('error', 'timed_out')), SUM(duration_ms), MAX(duration_ms),
  SUM(duration_ms <= 5), SUM(duration_ms <= 10), SUM(duration_ms <= 25), SUM(duration_ms <= 50), SUM(duration_ms <= 100),
  SUM(duration_ms <= 250), SUM(duration_ms <= 500), SUM(duration_ms <= 1000), SUM(duration_ms <= 2500),
  SUM(duration_ms <= 5000), SUM(duration_ms <= 10000), SUM(duration_ms <= 30000)
FROM audit_records GROUP BY 1, 2, 3, 4;
