-- Counters of the telemetry path itself (issue 32), kept in D1 so GET /metrics shows the same
-- figure from every isolate: OTLP exports that failed (endpoint down, slow past the timeout, or
-- answering an error) and the spans they carried, which are dropped, not retried. Written only
-- when an export fails, so a healthy collector costs no D1 write.
CREATE TABLE telemetry_counters (
  name  TEXT    PRIMARY KEY,
  value INTEGER NOT NULL
) STRICT;
