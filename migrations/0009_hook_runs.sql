-- Webhooks that start an agent run instead of fixed calls (issue 14; src/webhooks/delivery-runs.ts,
-- docs/storage.md). The delivery keeps what its run needs, which run it started (so a redelivered
-- message or a replay never starts a second one), and how the run ended (for the callback, which
-- may go out later, after the reply call's approval). NULL on every delivery of a `map` webhook.
ALTER TABLE hook_deliveries ADD COLUMN run_plan TEXT;     -- JSON {messages, model, max_turns, reply}, written at acceptance
ALTER TABLE hook_deliveries ADD COLUMN run_id TEXT;       -- the Run object's id, once started
ALTER TABLE hook_deliveries ADD COLUMN run_outcome TEXT;  -- JSON {id, status, answer, error}, once the run reported its end
