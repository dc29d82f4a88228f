/**
 * Counters of toolgate's own telemetry in D1 (migrations/0014_telemetry_counters.sql;
 * docs/storage.md): one row per counter, added to with an upsert, read by GET /metrics.
 */

export const TELEMETRY_COUNTERS_TABLE = "telemetry_counters";

/** The counters, by the name of their row. */
export const OTLP_EXPORT_FAILURES = "otlp_export_failures";
export const OTLP_SPANS_DROPPED = "otlp_spans_dropped";
export type TelemetryCounter = typeof OTLP_EXPORT_FAILURES | typeof OTLP_SPANS_DROPPED;

const ADD_SQL = `INSERT INTO ${TELEMETRY_COUNTERS_TABLE} (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = value + excluded.value`;

/** Adds to counters, in one D1 batch. */
export async function addToCounters(db: Pick<D1Database, "prepare" | "batch">, amounts: Partial<Record<TelemetryCounter, number>>): Promise<void> {
  const statements = Object.entries(amounts).map(([name, n]) => db.prepare(ADD_SQL).bind(name, n));
  if (statements.length > 0) await db.batch(statements);
}

/** Every counter's value; a counter never added to reads 0. */
export async function readCounters(db: Pick<D1Database, "prepare">): Promise<Record<TelemetryCounter, number>> {
  const { results } = await db.prepare(`SELECT name, value FROM ${TELEMETRY_COUNTERS_TABLE}`).all<{ name: string; value: number }>();
  const values: Record<TelemetryCounter, number> = { [OTLP_EXPORT_FAILURES]: 0, [OTLP_SPANS_DROPPED]: 0 };
  for (const row of results) if (row.name === OTLP_EXPORT_FAILURES || row.name === OTLP_SPANS_DROPPED) values[row.name] = row.value;
  return values;
}
