/**
 * The `hook_deliveries` table (migrations/0004_hook_deliveries.sql): one row per accepted
 * delivery, and the state machine its background run moves through:
 *
 *   queued → running → done | failed | awaiting_approval
 *
 * Every transition is a conditional UPDATE on the current status, so two consumers holding the
 * same (redelivered) message cannot both run the calls: only one UPDATE finds the row `queued`.
 */
import { type DeliveryRow, fromRow } from "./delivery-row.ts";
import type { CallbackStatus, Delivery, DeliveryStatus, RunPlan, StoredCall, StoredCallResult } from "./delivery-types.ts";

export {
  type CallbackStatus,
  DELIVERY_STATUSES,
  type Delivery,
  type DeliveryStatus,
  type RunOutcome,
  type RunPlan,
  type StoredCall,
  type StoredCallResult,
} from "./delivery-types.ts";

export const HOOK_DELIVERIES_TABLE = "hook_deliveries";

/** The database calls this module makes; tests pass a D1 that fails on a schedule. */
export type DeliveryDatabase = Pick<D1Database, "prepare" | "batch">;

export interface NewDelivery {
  id: string;
  hook: string;
  providerDeliveryId: string;
  receivedAt: number;
  calls: readonly StoredCall[];
  /** A delivery with no calls is complete on arrival: nothing is queued for it. */
  status: "queued" | "done";
  callbackPending: boolean;
  /** The x-request-id of the POST that delivered it. */
  requestId?: string;
  /** A run webhook's plan (needs migration 0009; a `map` webhook's delivery never writes the column). */
  runPlan?: RunPlan;
}

/**
 * Inserts a delivery unless its webhook has seen this sender id; then returns the first one's id
 * and status instead. One statement decides, so concurrent duplicates get one row between them.
 */
export async function insertDelivery(
  db: DeliveryDatabase,
  d: NewDelivery,
): Promise<{ inserted: true } | { inserted: false; first: { id: string; status: DeliveryStatus } }> {
  const values = [
    d.id,
    d.hook,
    d.providerDeliveryId,
    d.receivedAt,
    d.status,
    JSON.stringify(d.calls),
    d.status === "done" ? "[]" : null,
    d.receivedAt,
    d.callbackPending ? "pending" : null,
  ];
  const plan = d.runPlan === undefined ? [] : [JSON.stringify(d.runPlan)];
  const insert = (withRequestId: boolean) =>
    db
      .prepare(
        `INSERT INTO ${HOOK_DELIVERIES_TABLE} (id, hook, provider_delivery_id, received_at, status, calls, results, updated_at, callback_status${withRequestId ? ", request_id" : ""}${plan.length === 0 ? "" : ", run_plan"})
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?${withRequestId ? ", ?" : ""}${plan.length === 0 ? "" : ", ?"}) ON CONFLICT (hook, provider_delivery_id) DO NOTHING`,
      )
      .bind(...values, ...(withRequestId ? [d.requestId ?? null] : []), ...plan)
      .run();
  // A Worker deployed ahead of 0006_request_ids.sql still accepts deliveries, without the id.
  const result = await insert(true).catch((error: unknown) => {
    if (String(error).includes("no column named request_id")) return insert(false);
    throw error;
  });
  if (result.meta.changes === 1) return { inserted: true };
  const first = await db
    .prepare(`SELECT id, status FROM ${HOOK_DELIVERIES_TABLE} WHERE hook = ? AND provider_delivery_id = ?`)
    .bind(d.hook, d.providerDeliveryId)
    .first<{ id: string; status: DeliveryStatus }>();
  if (first === null) throw new Error(`delivery ${d.providerDeliveryId} of hook ${d.hook} conflicted but cannot be read back`);
  return { inserted: false, first };
}

export async function getDelivery(db: DeliveryDatabase, id: string): Promise<Delivery | undefined> {
  const row = await db.prepare(`SELECT * FROM ${HOOK_DELIVERIES_TABLE} WHERE id = ?`).bind(id).first<DeliveryRow>();
  return row === null ? undefined : fromRow(row);
}

/** What the dead-letter consumer needs, read without parsing the stored calls (they may be the poison). */
export async function getDeliveryState(
  db: DeliveryDatabase,
  id: string,
): Promise<Pick<Delivery, "hook" | "status" | "error" | "callbackStatus" | "callbackError"> | undefined> {
  const row = await db
    .prepare(`SELECT hook, status, error, callback_status, callback_error FROM ${HOOK_DELIVERIES_TABLE} WHERE id = ?`)
    .bind(id)
    .first<Pick<DeliveryRow, "hook" | "status" | "error" | "callback_status" | "callback_error">>();
  return row === null
    ? undefined
    : { hook: row.hook, status: row.status, error: row.error, callbackStatus: row.callback_status, callbackError: row.callback_error };
}

/** Removes a delivery that could not be queued, so the sender's retry is not taken for a replay. */
export async function deleteDelivery(db: DeliveryDatabase, id: string): Promise<void> {
  await db.prepare(`DELETE FROM ${HOOK_DELIVERIES_TABLE} WHERE id = ? AND status = 'queued'`).bind(id).run();
}

/** queued → running. True for exactly one caller per delivery. */
export async function claimDelivery(db: DeliveryDatabase, id: string, now: number): Promise<boolean> {
  const result = await db
    .prepare(
      `UPDATE ${HOOK_DELIVERIES_TABLE} SET status = 'running', claimed_at = ?, attempts = attempts + 1, updated_at = ? WHERE id = ? AND status = 'queued'`,
    )
    .bind(now, now, id)
    .run();
  return result.meta.changes === 1;
}

/** running → done | failed | awaiting_approval, with every call's result. */
export async function finishDelivery(
  db: DeliveryDatabase,
  id: string,
  status: Exclude<DeliveryStatus, "queued" | "running">,
  results: readonly StoredCallResult[],
  now: number,
): Promise<boolean> {
  const result = await db
    .prepare(`UPDATE ${HOOK_DELIVERIES_TABLE} SET status = ?, results = ?, error = NULL, updated_at = ? WHERE id = ? AND status = 'running'`)
    .bind(status, JSON.stringify(results), now, id)
    .run();
  return result.meta.changes === 1;
}

/** queued | running → failed, with the reason. False when it had already finished. */
export async function failDelivery(db: DeliveryDatabase, id: string, reason: string, now: number): Promise<boolean> {
  const result = await db
    .prepare(
      `UPDATE ${HOOK_DELIVERIES_TABLE} SET status = 'failed', error = ?, callback_status = NULL, updated_at = ? WHERE id = ? AND status IN ('queued', 'running')`,
    )
    .bind(reason.slice(0, 2000), now, id)
    .run();
  return result.meta.changes === 1;
}

/**
 * failed → queued, for an admin's re-run: its results and error are cleared (a webhook with a
 * callback owes it again). False unless it was failed, so two re-runs queue it once.
 */
export async function requeueDelivery(db: DeliveryDatabase, id: string, callbackPending: boolean, now: number): Promise<boolean> {
  const result = await db
    .prepare(
      `UPDATE ${HOOK_DELIVERIES_TABLE} SET status = 'queued', results = NULL, error = NULL, claimed_at = NULL, callback_status = ?, callback_attempts = 0, callback_error = NULL, updated_at = ? WHERE id = ? AND status = 'failed'`,
    )
    .bind(callbackPending ? "pending" : null, now, id)
    .run();
  return result.meta.changes === 1;
}

/**
 * Keeps the last transient error of an unfinished delivery, for the dead-letter consumer to
 * report. A finished one keeps its clean state (a callback's errors have their own column).
 */
export async function noteDeliveryError(db: DeliveryDatabase, id: string, error: string, now: number): Promise<void> {
  await db
    .prepare(`UPDATE ${HOOK_DELIVERIES_TABLE} SET error = ?, updated_at = ? WHERE id = ? AND status IN ('queued', 'running')`)
    .bind(error.slice(0, 2000), now, id)
    .run();
}

/** Records a callback attempt's result; only a still-pending callback changes. */
export async function settleCallback(db: DeliveryDatabase, id: string, status: CallbackStatus, error: string | null, now: number): Promise<boolean> {
  const result = await db
    .prepare(
      `UPDATE ${HOOK_DELIVERIES_TABLE} SET callback_status = ?, callback_attempts = callback_attempts + 1, callback_error = ?, updated_at = ? WHERE id = ? AND callback_status = 'pending'`,
    )
    .bind(status, error === null ? null : error.slice(0, 2000), now, id)
    .run();
  return result.meta.changes === 1;
}

/**
 * awaiting_approval → awaiting_approval | done, with results some settled approvals changed.
 * Compare-and-set on the results the caller read: of two consumers settling two approvals of one
 * delivery at once, the second finds the row changed and must read it again (false), so neither
 * overwrites the other's result. Rows hold JSON.stringify output, which parsing and stringifying
 * again reproduces exactly.
 */
export async function settleDeliveryResults(
  db: DeliveryDatabase,
  id: string,
  read: readonly StoredCallResult[],
  results: readonly StoredCallResult[],
  status: Extract<DeliveryStatus, "done" | "awaiting_approval">,
  now: number,
): Promise<boolean> {
  const result = await db
    .prepare(`UPDATE ${HOOK_DELIVERIES_TABLE} SET status = ?, results = ?, updated_at = ? WHERE id = ? AND status = 'awaiting_approval' AND results = ?`)
    .bind(status, JSON.stringify(results), now, id, JSON.stringify(read))
    .run();
  return result.meta.changes === 1;
}
