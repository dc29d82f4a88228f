-- Scheduled runs (issue 34; src/schedules/, docs/schedules.md, docs/storage.md).
--
-- The index of schedules, one row per schedule, written by its Schedule Durable Object (the
-- source of truth) at every change: GET /v1/schedules lists a key's schedules (an admin's: all)
-- without waking every object, and the per-key cap (SCHEDULES_PER_KEY) counts here.
CREATE TABLE schedules (
  id            TEXT    PRIMARY KEY,
  key_id        TEXT    NOT NULL,
  name          TEXT    NOT NULL,
  status        TEXT    NOT NULL CHECK (status IN ('active', 'paused', 'stopped')),
  status_reason TEXT,
  next_fire_at  INTEGER,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
) STRICT;

CREATE INDEX schedules_key ON schedules (key_id, created_at);
