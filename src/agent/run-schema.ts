/**
 * The Run object's SQLite tables (docs/storage.md, "Durable Objects"). One object per run, so
 * every table holds that run only.
 */

/** One row, `id = 'run'`: the RunRecord as JSON, rewritten after every step. */
export const RUN_RECORD_TABLE = "run_record";
/** The transcript, one message per row in order (`seq` from 0). */
export const RUN_MESSAGES_TABLE = "run_messages";
/** The run's events, numbered from 1: the SSE ids GET /v1/runs/{id}/events resumes from. */
export const RUN_EVENTS_TABLE = "run_events";

export const RUN_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS ${RUN_RECORD_TABLE} (id TEXT PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ${RUN_MESSAGES_TABLE} (seq INTEGER PRIMARY KEY, message TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ${RUN_EVENTS_TABLE} (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL);
`;
