/**
 * Group commit for audit records: the records of concurrent requests in one isolate go to the
 * queue together, in one `sendBatch`, instead of one `sendBatch` per request. A send costs about
 * the same for one record as for a hundred, so under load this divides the audit's cost by the
 * group size; a lone request's records wait at most `maxDelayMs` (after its response) for company.
 *
 * Durability is unchanged: the flush that carries a request's records is kept alive by the
 * `waitUntil` of the request that sends the group (its opener, at its timer, or the one that
 * filled it or found it stale), so the platform keeps the isolate up until they are with the
 * queue (or, if the queue refuses, in D1, or logged whole: AuditBuffer.flush). Nothing is
 * acknowledged to anyone before that, and a record is never in two groups.
 */
import { AuditBuffer, type AuditSinkEnv } from "./audit-buffer.ts";
import type { AuditRecord } from "./audit-record.ts";

/**
 * The defaults, from a sweep of group sizes (`audit-cost`'s queue stage, 2026-12-01): a send
 * has a fixed cost, so per record the queue path cost about 90-150 us in groups of 10, 50-80 in
 * groups of 30, 45-55 in groups of 60 and 33-47 in groups of 200. At the bench's few hundred calls
 * a second, 50 ms gathered groups of 20-50; 200 ms gathers several times more. The price is
 * that a group opener's waitUntil lasts up to 200 ms after its response, and that an isolate which
 * dies in that time loses the records it holds, as it would at 50 ms. Records travel several to
 * a message, so a group is no longer bounded by the 100 messages of one sendBatch (a full group
 * is a few messages).
 */
export const GROUP_MAX_RECORDS = 500;
export const GROUP_MAX_DELAY_MS = 200;

export interface GroupCommitOptions {
  /** A group is sent as soon as it holds this many records. */
  maxRecords?: number;
  /** Otherwise this long after its first record. */
  maxDelayMs?: number;
  /** The clock a group's age is judged by (tests move it). */
  now?: () => number;
}

/**
 * A group still open this long after its first record lost its timer: the timer belongs to the
 * request that opened the group, and a request that is gone never runs it. The next request to
 * add records sends the group itself (src/runtime/wait-for-other-request.ts has the rule).
 */
export const STALE_GROUP_MS = 1_000;

interface Group {
  buffer: AuditBuffer;
  openedAt: number;
  /** The bindings it opened with, which `sendOpen` sends it through. */
  env: AuditSinkEnv;
}

/**
 * Coalesces audit records into shared flushes, one open group per queue binding (the isolate's
 * env normally has one; tests may pass several).
 *
 * No promise is shared between requests: in workerd a request's `waitUntil` may only be settled
 * by that request's own I/O and timers. A group sent by another request than its opener (full, or
 * stale) is awaited by that request alone, and the opener's wait ends on its own timer, which no
 * other request clears. (Sharing the group's promise let a request that filled a group clear the
 * opener's timer and settle the opener's wait from its own flush: workerd then reported "Promise
 * will never complete" and "Cannot perform I/O on behalf of a different request".)
 *
 * @example
 * const flush = auditGroupCommit.add(env, records);
 * if (flush !== undefined) ctx.waitUntil(flush);
 */
export class AuditGroupCommit {
  readonly #maxRecords: number;
  readonly #maxDelayMs: number;
  /** A Map, not a WeakMap: `sendOpen` walks it, and an entry lives only until its group is sent. */
  readonly #open = new Map<AuditSinkEnv["AUDIT_QUEUE"], Group>();
  readonly #now: () => number;
  /** Groups sent and the records they carried, since the isolate started. */
  readonly #sent = { groups: 0, records: 0 };

  constructor({ maxRecords = GROUP_MAX_RECORDS, maxDelayMs = GROUP_MAX_DELAY_MS, now = () => Date.now() }: GroupCommitOptions = {}) {
    this.#maxRecords = maxRecords;
    this.#maxDelayMs = maxDelayMs;
    this.#now = now;
  }

  /**
   * Adds `records` to the open group. Returns what the caller must keep alive with its
   * `waitUntil`, or undefined when it need not: the group's opener gets its timer's wait (which
   * sends the group, unless another request already has), and a request that sends a group
   * itself (full, or left stale) gets that send. Never rejects.
   *
   * One waitUntil per group rather than per request: in workerd each waitUntil is a native call
   * that holds its request's context open until the group goes (up to maxDelayMs, so a few
   * hundred contexts at a time under load), and together they cost more CPU than the send. The
   * records are as safe: they sit in a group whose opener's waitUntil lasts until its timer
   * sends it, and if that timer never runs (its request is gone), the next request to add records
   * sends the group and waits for that.
   */
  add(env: AuditSinkEnv, records: readonly AuditRecord[]): Promise<void> | undefined {
    if (records.length === 0) return undefined;
    const waits: Promise<void>[] = [];
    const stale = this.#open.get(env.AUDIT_QUEUE);
    if (stale !== undefined && this.#now() - stale.openedAt >= STALE_GROUP_MS) waits.push(this.#send(env, stale));
    let group = this.#open.get(env.AUDIT_QUEUE);
    if (group === undefined) {
      group = { buffer: new AuditBuffer(), openedAt: this.#now(), env };
      this.#open.set(env.AUDIT_QUEUE, group);
      waits.push(this.#openerWait(env, group));
    }
    for (const record of records) group.buffer.add(record);
    if (group.buffer.size >= this.#maxRecords) waits.push(this.#send(env, group));
    if (waits.length === 0) return undefined;
    return waits.length === 1 ? waits[0] : Promise.all(waits).then(() => undefined);
  }

  /**
   * Sends every open group now, from the calling context. For a caller that knows no later
   * request will come to send a group whose opener's timer died with its context (a Durable
   * Object aborted mid-wait): the tests' per-file drain, so a file's records land in its own D1.
   */
  sendOpen(): Promise<void> {
    return Promise.all([...this.#open.values()].map((group) => this.#send(group.env, group))).then(() => undefined);
  }

  /** How large the groups sent so far were: the benchmark models the queue's cost by it. */
  stats(): { groups: number; records: number } {
    return { ...this.#sent };
  }

  /** The opener's wait: its own timer sends the group, if no other request has by then. */
  #openerWait(env: AuditSinkEnv, group: Group): Promise<void> {
    return new Promise<void>((resolve) => {
      setTimeout(() => resolve(this.#send(env, group)), this.#maxDelayMs);
    });
  }

  /** Closes `group` and flushes it from the calling request; a group already sent resolves at once. */
  #send(env: AuditSinkEnv, group: Group): Promise<void> {
    if (this.#open.get(env.AUDIT_QUEUE) !== group) return Promise.resolve();
    // Closed before the flush starts: records added from now on open the next group.
    this.#open.delete(env.AUDIT_QUEUE);
    this.#sent.groups += 1;
    this.#sent.records += group.buffer.size;
    return group.buffer.flush(env);
  }
}

/** The isolate's group commit, shared by every request it serves. */
export const auditGroupCommit = new AuditGroupCommit();
