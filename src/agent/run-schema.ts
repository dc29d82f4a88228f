/**
 * The Run object's SQLite tables (docs/storage.md, "Durable Objects"). One object per run, so
 * every table holds that run only.
 */

/**
 * The RunRecord by part, one row each: `start` (RUN_FIXED_ROW), what is fixed when the run
 * starts, written once; `state` (RUN_STATE_ROW), what changes, rewritten at every change; and
 * each finished step (stepRowId), written once. In one table so that a save is one statement.
 */
export const RUN_RECORD_TABLE = "run_record";
export const RUN_FIXED_ROW = "start";
export const RUN_STATE_ROW = "state";
/** The prefix of a step's row id; the number is zero-padded so the ids sort in step order. */
export const RUN_STEP_ROW_PREFIX = "step:";
export const stepRowId = (seq: number): string => `${RUN_STEP_ROW_PREFIX}${String(seq).padStart(6, "0")}`;
/** The whole RunRecord in one row, steps included, as objects made before the parts stored it; split on first load. */
export const LEGACY_RUN_ROW = "run";
/** The transcript, one message per row in order (`seq` from 0). */
export const RUN_MESSAGES_TABLE = "run_messages";
/** The run's events, numbered from 1: the SSE ids GET /v1/runs/{id}/events resumes from. */
export const RUN_EVENTS_TABLE = "run_events";

export const RUN_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS ${RUN_RECORD_TABLE} (id TEXT PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ${RUN_MESSAGES_TABLE} (seq INTEGER PRIMARY KEY, message TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ${RUN_EVENTS_TABLE} (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL);
`;
