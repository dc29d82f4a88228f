/**
 * The consumer of both audit queues. `toolgate-audit` retries a failed write on a short
 * exponential schedule (max_retries 10, about 24 minutes in all); after that the platform moves
 * the message to `toolgate-audit-dlq`, whose consumer is this same function on a slow schedule
 * (max_retries 100, about three days), so a long D1 outage loses nothing.
 */
import { checkCandidate } from "./audit-candidate.ts";
import { candidatesOf, rowListOf } from "./audit-message.ts";
import { type AuditShardEnv, writeShardedRowLists } from "./audit-shards.ts";
import { toRowValues } from "./audit-table.ts";

/** Queue names as wrangler.toml declares them. */
export const AUDIT_QUEUE_NAME = "toolgate-audit";
export const AUDIT_DLQ_NAME = "toolgate-audit-dlq";

/**
 * Seconds before a failed message is redelivered, growing with its delivery count (`attempts`
 * starts at 1): 2, 4, 8 ... capped at 5 minutes on the main queue; 1, 2, 3 ... minutes capped at
 * an hour on the dead-letter queue.
 */
export function retryDelaySeconds(attempts: number, queue: string): number {
  if (queue === AUDIT_DLQ_NAME) return Math.min(60 * Math.max(1, attempts), 3600);
  return Math.min(2 ** Math.max(1, attempts), 300);
}

/**
 * Writes the records of a batch of audit messages with one D1 batch: acks every message when it
 * commits, retries every message with a growing delay when it does not.
 *
 * Messages in the current format go to D1 as they arrived, unparsed (audit-message.ts says
 * why). Only if D1 refuses them is each record parsed and validated: a body or record that is
 * not an audit record can never be written, so it is logged whole and dropped (its message acked
 * once the rest of it is written) instead of retried forever; if every record was valid, the
 * failure was D1's and the whole batch is retried.
 */
export async function handleAuditQueue(batch: MessageBatch<unknown>, env: AuditShardEnv): Promise<void> {
  const fast: string[] = [];
  for (const message of batch.messages) {
    const rows = rowListOf(message.body);
    if (rows === undefined) break;
    fast.push(rows);
  }
  if (fast.length === batch.messages.length) {
    try {
      await writeShardedRowLists(env, fast);
      for (const message of batch.messages) message.ack();
      return;
    } catch (error) {
      console.warn(`audit: D1 refused ${fast.length} message(s) from ${batch.queue} as sent, checking each record: ${String(error)}`);
    }
  }
  await writeChecked(batch, env);
}

/** The slow path: every record parsed and checked; bad ones dropped, the rest written or retried. */
async function writeChecked(batch: MessageBatch<unknown>, env: AuditShardEnv): Promise<void> {
  const pending: Message<unknown>[] = [];
  const rows: string[] = [];
  for (const message of batch.messages) {
    const candidates = candidatesOf(message.body);
    if (candidates === undefined) {
      console.error(`audit: dropping message ${message.id} on ${batch.queue}, not an audit message:`, JSON.stringify(message.body));
      message.ack();
      continue;
    }
    for (const candidate of candidates) {
      const checked = checkCandidate(candidate);
      if (checked.ok) rows.push(JSON.stringify(toRowValues(checked.record)));
      else
        console.error(`audit: dropping a record of message ${message.id} on ${batch.queue}, not an audit record (${checked.why}):`, JSON.stringify(candidate));
    }
    pending.push(message);
  }
  try {
    await writeShardedRowLists(env, rows);
  } catch (error) {
    console.warn(`audit: writing ${rows.length} record(s) of ${pending.length} message(s) from ${batch.queue} failed, retrying: ${String(error)}`);
    for (const message of pending) message.retry({ delaySeconds: retryDelaySeconds(message.attempts, batch.queue) });
    return;
  }
  for (const message of pending) message.ack();
}
