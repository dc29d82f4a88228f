/**
 * The Run object's SQLite tables (docs/storage.md, "Durable Objects"). One object per run, so
 * every table holds that run only.
 */

/**
 * The RunRecord without its steps, in two rows: `start` (RUN_FIXED_ROW), what is fixed when the
 * run starts, written once; `state` (RUN_STATE_ROW), what changes, rewritten at every change.
 */
export const RUN_RECORD_TABLE = "run_record";
export const RUN_FIXED_ROW = "start";
export const RUN_STATE_ROW = "state";
/** The whole RunRecord in one row, steps included, as objects made before RUN_STEPS_TABLE stored it; split on first load. */
export const LEGACY_RUN_ROW = "run";
/** The run's steps, one per row in order (`seq` from 0), each written when its calls have ended. */
export const RUN_STEPS_TABLE = "run_steps";
/** The transcript, one message per row in order (`seq` from 0). */
export const RUN_MESSAGES_TABLE = "run_messages";
/** The run's events, numbered from 1: the SSE ids GET /v1/runs/{id}/events resumes from. */
export const RUN_EVENTS_TABLE = "run_events";

export const RUN_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS ${RUN_RECORD_TABLE} (id TEXT PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ${RUN_STEPS_TABLE} (seq INTEGER PRIMARY KEY, step TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ${RUN_MESSAGES_TABLE} (seq INTEGER PRIMARY KEY, message TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ${RUN_EVENTS_TABLE} (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL);
`;
