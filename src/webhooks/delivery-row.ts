/**
 * A `hook_deliveries` row as D1 returns it (delivery-store.ts reads it), and its reading into a
 * `Delivery`: the JSON columns parsed, a column a migration added defaulted where it is absent.
 */
import type { CallbackStatus, Delivery, DeliveryStatus, RunOutcome, RunPlan, StoredCall, StoredCallResult } from "./delivery-types.ts";

/** The table's columns, snake_case as stored. */
export interface DeliveryRow {
  id: string;
  hook: string;
  provider_delivery_id: string;
  received_at: number;
  status: DeliveryStatus;
  calls: string;
  results: string | null;
  error: string | null;
  attempts: number;
  claimed_at: number | null;
  updated_at: number;
  callback_status: CallbackStatus | null;
  callback_attempts: number;
  callback_error: string | null;
  /** Absent before 0006_request_ids.sql. */
  request_id?: string | null;
  /** Absent before 0009_hook_runs.sql. */
  run_plan?: string | null;
  run_id?: string | null;
  run_outcome?: string | null;
}

/** Thrown when a stored row cannot be read back (a corrupt `calls` column): a poison delivery. */
export class CorruptDeliveryError extends Error {
  override readonly name = "CorruptDeliveryError";
}

/** The row as its readers get it; throws CorruptDeliveryError when a JSON column cannot be read back. */
export function fromRow(row: DeliveryRow): Delivery {
  let calls: StoredCall[];
  let results: StoredCallResult[] | null;
  let runPlan: RunPlan | null;
  let runOutcome: RunOutcome | null;
  try {
    calls = JSON.parse(row.calls) as StoredCall[];
    results = row.results === null ? null : (JSON.parse(row.results) as StoredCallResult[]);
    runPlan = row.run_plan === undefined || row.run_plan === null ? null : (JSON.parse(row.run_plan) as RunPlan);
    runOutcome = row.run_outcome === undefined || row.run_outcome === null ? null : (JSON.parse(row.run_outcome) as RunOutcome);
  } catch (error) {
    throw new CorruptDeliveryError(`delivery ${row.id} has unreadable stored calls or results: ${String(error)}`);
  }
  if (!Array.isArray(calls)) throw new CorruptDeliveryError(`delivery ${row.id}: stored calls are not a list`);
  return {
    id: row.id,
    hook: row.hook,
    providerDeliveryId: row.provider_delivery_id,
    receivedAt: row.received_at,
    status: row.status,
    calls,
    results,
    error: row.error,
    attempts: row.attempts,
    claimedAt: row.claimed_at,
    updatedAt: row.updated_at,
    callbackStatus: row.callback_status,
    callbackAttempts: row.callback_attempts,
    callbackError: row.callback_error,
    requestId: row.request_id ?? null,
    runPlan,
    runId: row.run_id ?? null,
    runOutcome,
  };
}
