/**
 * Reads the bench Worker's audit_log row count (AUDIT_COUNT_PATH), and waits for the audit
 * queue to deliver: records reach D1 only after the queue's consumer runs, which Miniflare
 * does after up to max_batch_timeout (1 s in wrangler.toml) or 100 messages.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { LoadClient } from "./load.ts";
import { AUDIT_COUNT_PATH } from "./requests.ts";

const POLL_MS = 200;
/** Longer than the queue's 1 s batch timeout, so "no new rows" means the queue is idle. */
const QUIET_MS = 1_500;

/**
 * Rows in audit_log now; with `since` (epoch ms), only rows recorded from then on, counted over
 * that stretch of the table's (at, rid) key instead of the whole table, so polling costs little
 * when the cost of what is being waited for is measured.
 */
export async function auditRows(client: LoadClient, since?: number): Promise<number> {
  const { status, body } = await client.send({ method: "GET", path: since === undefined ? AUDIT_COUNT_PATH : `${AUDIT_COUNT_PATH}?since=${since}` });
  const rows = status === 200 ? (JSON.parse(body) as { rows?: unknown }).rows : undefined;
  if (typeof rows !== "number") throw new Error(`bench: ${AUDIT_COUNT_PATH} answered ${status}: ${body.slice(0, 300)}`);
  return rows;
}

/** The row count once it has not moved for QUIET_MS (earlier audited requests all delivered). */
export async function settledAuditRows(client: LoadClient): Promise<number> {
  let rows = await auditRows(client);
  let stableSince = performance.now();
  while (performance.now() - stableSince < QUIET_MS) {
    await sleep(POLL_MS);
    const now = await auditRows(client);
    if (now !== rows) stableSince = performance.now();
    rows = now;
  }
  return rows;
}

/**
 * Polls until audit_log holds at least `expected` rows (recorded from `since` on, when given)
 * or `timeoutMs` passes; returns the last count, how long the wait took and how many counts it
 * asked for (each is a request and a D1 query in the measured process).
 */
export async function drainAuditRows(
  client: LoadClient,
  expected: number,
  timeoutMs: number,
  since?: number,
): Promise<{ rows: number; waitedMs: number; polls: number }> {
  const t0 = performance.now();
  let rows = await auditRows(client, since);
  let polls = 1;
  while (rows < expected && performance.now() - t0 < timeoutMs) {
    await sleep(POLL_MS);
    rows = await auditRows(client, since);
    polls += 1;
  }
  return { rows, waitedMs: performance.now() - t0, polls };
}
