-- Webhook deliveries (src/hooks/; docs/storage.md). One row per accepted delivery: the calls its
-- hook mapped the payload to, where their background run stands, and each call's result.
-- UNIQUE (hook, provider_delivery_id) is the replay guard: the route inserts with
-- ON CONFLICT DO NOTHING and reads the first row back, so a replayed or concurrently duplicated
-- delivery never makes a second row and never runs twice. Rows older than
-- HOOK_DELIVERY_RETENTION_DAYS are deleted by the daily cron, which is also the replay window.
CREATE TABLE hook_deliveries (
  id                   TEXT    PRIMARY KEY,          -- our delivery id, a random UUID
  hook                 TEXT    NOT NULL,
  provider_delivery_id TEXT    NOT NULL,             -- X-GitHub-Delivery, X-Toolgate-Delivery, or derived from the signature
  received_at          INTEGER NOT NULL,             -- epoch ms
  status               TEXT    NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed', 'awaiting_approval')),
  calls                TEXT    NOT NULL,             -- JSON array of {id, name, arguments}
  results              TEXT,                         -- JSON array of per-call results, once run
  error                TEXT,                         -- why the delivery failed, or the last transient error
  attempts             INTEGER NOT NULL DEFAULT 0,   -- times a consumer claimed it
  claimed_at           INTEGER,                      -- when the run began (epoch ms)
  updated_at           INTEGER NOT NULL,
  callback_status      TEXT    CHECK (callback_status IS NULL OR callback_status IN ('pending', 'delivered', 'failed', 'refused')),
  callback_attempts    INTEGER NOT NULL DEFAULT 0,
  callback_error       TEXT,
  UNIQUE (hook, provider_delivery_id)
) STRICT;

-- The retention delete.
CREATE INDEX hook_deliveries_received_at ON hook_deliveries (received_at);

-- Every delivery outcome, refused ones included (they have no hook_deliveries row): accepted,
-- replay, bad or missing signature, stale timestamp, unset secret, too large, unreadable
-- payload, and what the background run ended with. audit_log stays one row per tool call.
CREATE TABLE hook_events (
  id           TEXT    PRIMARY KEY,                  -- random UUID
  at           INTEGER NOT NULL,                     -- epoch ms
  hook         TEXT    NOT NULL,
  outcome      TEXT    NOT NULL,
  delivery_id  TEXT,                                 -- hook_deliveries.id, when there is one
  detail       TEXT                                  -- the reason, for refusals and failures
) STRICT;

CREATE INDEX hook_events_at ON hook_events (at, id);
CREATE INDEX hook_events_hook_at ON hook_events (hook, at, id);
CREATE INDEX hook_events_delivery ON hook_events (delivery_id) WHERE delivery_id IS NOT NULL;
