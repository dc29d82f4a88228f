/**
 * Collects audit records and ships them to the audit queue, off the critical path (the
 * request's records go through audit-group-commit.ts, which flushes one buffer per group).
 *
 * Records travel several to a message (audit-message.ts); a message is acked or retried as a
 * whole, which is exact because the writer skips ids it already stored.
 */
import { AUDIT_MESSAGE_CONTENT_TYPE, type PackedBatch, packAuditMessages } from "./audit-message.ts";
import type { AuditRecord } from "./audit-record.ts";
import { type AuditShardEnv, writeShardedRowLists } from "./audit-shards.ts";
import { toRowValues } from "./audit-table.ts";

export { QUEUE_BATCH_MESSAGES } from "./audit-message.ts";

/** The bindings a flush needs; the Worker's Env has them. */
export interface AuditSinkEnv extends AuditShardEnv {
  AUDIT_QUEUE: Pick<Queue, "sendBatch">;
}

/**
 * Audit records waiting to be sent.
 *
 * @example
 * const audit = new AuditBuffer();
 * audit.add(toAuditRecord(outcome, call.arguments, meta));
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
   * Sends the records to AUDIT_QUEUE; a batch the queue refuses is written to D1 directly, and
   * a batch both refuse is logged whole at error level, so it survives in the Worker's logs.
   * Never rejects (it runs in waitUntil, where a rejection would only be noise).
   */
  async flush(env: AuditSinkEnv): Promise<void> {
    const records = this.#records;
    this.#records = [];
    await Promise.all(packAuditMessages(records).map((batch) => deliver(env, batch)));
  }
}

async function deliver(env: AuditSinkEnv, { bodies, records }: PackedBatch): Promise<void> {
  try {
    await env.AUDIT_QUEUE.sendBatch(bodies.map((body) => ({ body, contentType: AUDIT_MESSAGE_CONTENT_TYPE })));
    return;
  } catch (queueError) {
    console.warn(`audit: queue refused ${records.length} record(s), writing them to D1 directly: ${String(queueError)}`);
    try {
      await writeShardedRowLists(
        env,
        records.map((record) => JSON.stringify(toRowValues(record))),
      );
    } catch (dbError) {
      console.error(
        `AUDIT RECORDS LOST: queue and D1 both failed for ${records.length} record(s) (queue: ${String(queueError)}; D1: ${String(dbError)}). Records follow; replay them with writeAuditRecords.`,
        JSON.stringify(records),
      );
    }
  }
}
