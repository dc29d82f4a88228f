-- Run retention (issue 14; src/agent/run-retention.ts, docs/storage.md).
--
-- The daily cron deletes `runs` rows not updated for RUN_RETENTION_DAYS, a chunk at a time
-- (`rowid IN (SELECT rowid FROM runs WHERE updated_at < ? LIMIT ?)`). Without this index each
-- chunk would scan the whole table; with it, each reads only the rows it deletes.
CREATE INDEX runs_updated ON runs (updated_at);
