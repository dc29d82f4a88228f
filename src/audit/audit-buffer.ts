/**
 * Collects a request's audit records and ships them after the response, off the critical path.
 *
 * One record per queue message: a message is then acked or retried exactly when its row is
 * written or not, a consumer batch (at most 100 messages) is one D1 batch of at most 100
 * statements, and a record (at most ~12 KB: 4 KiB of arguments, 20 coercions) can never reach
 * the 128 KB message limit. The price is one queue operation per record instead of one per
 * request; at audit volumes that is cheaper than the complexity of partial acks.
 */
import type { AuditRecord } from "./audit-record.ts";
import { writeAuditRecords, type AuditDatabase } from "./write-audit-records.ts";

/** Cloudflare Queues: at most 100 messages and 256 KB per sendBatch. */
export const QUEUE_BATCH_MESSAGES = 100;
/** 256 KB less a margin for the per-message overhead the platform counts. */
export const QUEUE_BATCH_BYTES = 240 * 1024;
const MESSAGE_OVERHEAD_BYTES = 100;

/** The bindings a flush needs; the Worker's Env has them. */
export interface AuditSinkEnv {
  AUDIT_QUEUE: Pick<Queue, "sendBatch">;
  DB: AuditDatabase;
}

const encoder = new TextEncoder();

/** Splits records into sendBatch calls within both of the queue's batch limits. */
export function chunkForQueue(records: readonly AuditRecord[]): AuditRecord[][] {
  const chunks: AuditRecord[][] = [];
  let current: AuditRecord[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = encoder.encode(JSON.stringify(record)).length + MESSAGE_OVERHEAD_BYTES;
    if (current.length > 0 && (current.length === QUEUE_BATCH_MESSAGES || bytes + size > QUEUE_BATCH_BYTES)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(record);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * A request's audit records.
 *
 * @example
 * const audit = new AuditBuffer();
 * audit.add(await toAuditRecord(outcome, call.arguments, meta));
 * c.executionCtx.waitUntil(audit.flush(c.env));
 */
export class AuditBuffer {
  #records: AuditRecord[] = [];

  /** Keeps a record until `flush`. */
  add(record: AuditRecord): void {
    this.#records.push(record);
  }

  /** Records waiting for `flush`. */
  get size(): number {
    return this.#records.length;
  }

  /**
   * Sends the records to AUDIT_QUEUE; a chunk the queue refuses is written to D1 directly, and
   * a chunk both refuse is logged whole at error level, so it survives in the Worker's logs.
   * Never rejects (it runs in waitUntil, where a rejection would only be noise).
   */
  async flush(env: AuditSinkEnv): Promise<void> {
    const records = this.#records;
    this.#records = [];
    await Promise.all(chunkForQueue(records).map((chunk) => deliver(env, chunk)));
  }
}

async function deliver(env: AuditSinkEnv, chunk: AuditRecord[]): Promise<void> {
  try {
    await env.AUDIT_QUEUE.sendBatch(chunk.map((record) => ({ body: record, contentType: "json" })));
    return;
  } catch (queueError) {
    console.warn(`audit: queue refused ${chunk.length} record(s), writing them to D1 directly: ${String(queueError)}`);
    try {
      await writeAuditRecords(env.DB, chunk);
    } catch (dbError) {
      console.error(
        `AUDIT RECORDS LOST: queue and D1 both failed for ${chunk.length} record(s) (queue: ${String(queueError)}; D1: ${String(dbError)}). Records follow; replay them with writeAuditRecords.`,
        JSON.stringify(chunk),
      );
    }
  }
}
