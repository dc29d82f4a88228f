/**
 * The `hook_events` table: one row per delivery outcome, refusals included. A refused delivery
 * (bad signature, stale timestamp, oversized) has no `hook_deliveries` row and no tool call, so
 * neither that table nor the per-call `audit_log` can hold it; one narrow table does, and
 * `GET /v1/hooks/events` serves it.
 *
 * Written straight to D1 (in waitUntil at the edge), not through the audit queue: a row is a
 * single small INSERT next to the delivery's own D1 writes, and the queue's consumer is built
 * for per-call records. The cost is that an event is lost if D1 fails at that moment; the
 * failure is logged with the whole event.
 */
export const HOOK_EVENTS_TABLE = "hook_events";

export const WEBHOOK_EVENT_OUTCOMES = [
  "accepted",
  "replay",
  "missing_signature",
  "bad_signature",
  "stale_timestamp",
  "no_secret",
  "too_large",
  "unsupported_media_type",
  "malformed_payload",
  "rejected_payload",
  "queue_unavailable",
  "handshake",
  "done",
  "failed",
  "awaiting_approval",
  "dead_lettered",
  "requeued",
  "callback_delivered",
  "callback_failed",
  "callback_refused",
  "approval_settled",
  "run_started",
  "run_finished",
] as const;
export type WebhookEventOutcome = (typeof WEBHOOK_EVENT_OUTCOMES)[number];

export interface WebhookEvent {
  id: string;
  at: number;
  hook: string;
  outcome: WebhookEventOutcome;
  deliveryId: string | null;
  detail: string | null;
}

type Database = Pick<D1Database, "prepare">;

// Listings order by (at, id). Events of one delivery often share a millisecond (a settle and the
// "done" it causes), so ids sort in creation order within an isolate: a per-isolate counter,
// then randomness so isolates never collide.
let eventCounter = 0;
function nextEventId(): string {
  eventCounter = (eventCounter + 1) % 1e9;
  return `${String(eventCounter).padStart(9, "0")}-${crypto.randomUUID()}`;
}

/** Writes one event; never rejects (a lost event is logged in full instead). */
export async function recordWebhookEvent(db: Database, event: Omit<WebhookEvent, "id" | "at"> & { at?: number }): Promise<void> {
  const row: WebhookEvent = { id: nextEventId(), at: event.at ?? Date.now(), ...event, detail: event.detail?.slice(0, 2000) ?? null };
  try {
    await db
      .prepare(`INSERT INTO ${HOOK_EVENTS_TABLE} (id, at, hook, outcome, delivery_id, detail) VALUES (?, ?, ?, ?, ?, ?)`)
      .bind(row.id, row.at, row.hook, row.outcome, row.deliveryId, row.detail)
      .run();
  } catch (error) {
    console.error(`HOOK EVENT LOST: ${String(error)}`, JSON.stringify(row));
  }
}

export interface WebhookEventFilter {
  hook?: string;
  deliveryId?: string;
  outcome?: WebhookEventOutcome;
  /** Only events before this time (epoch ms): the next page of a listing. */
  before?: number;
  limit: number;
}

/** Events newest first. */
export async function listWebhookEvents(db: Database, filter: WebhookEventFilter): Promise<WebhookEvent[]> {
  const conditions: [string, string | number | undefined][] = [
    ["hook = ?", filter.hook],
    ["delivery_id = ?", filter.deliveryId],
    ["outcome = ?", filter.outcome],
    ["at < ?", filter.before],
  ];
  const used = conditions.filter((c): c is [string, string | number] => c[1] !== undefined);
  const where = used.map(([sql]) => sql);
  const params = used.map(([, value]) => value);
  const clause = where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`;
  const { results } = await db
    .prepare(`SELECT id, at, hook, outcome, delivery_id, detail FROM ${HOOK_EVENTS_TABLE} ${clause} ORDER BY at DESC, id DESC LIMIT ?`)
    .bind(...params, filter.limit)
    .all<{ id: string; at: number; hook: string; outcome: WebhookEventOutcome; delivery_id: string | null; detail: string | null }>();
  return results.map((r) => ({ id: r.id, at: r.at, hook: r.hook, outcome: r.outcome, deliveryId: r.delivery_id, detail: r.detail }));
}
