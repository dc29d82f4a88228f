/**
 * Group commit for audit records: the records of concurrent requests in one isolate go to the
 * queue together, in one `sendBatch`, instead of one `sendBatch` per request. A send costs about
 * the same for one record as for a hundred, so under load this divides the audit's cost by the
 * group size; a lone request's records wait at most `maxDelayMs` (after its response) for company.
 *
 * Durability is unchanged: the flush that carries a request's records is kept alive by a
 * `waitUntil` (the group opener's, or that of the request that sent the group), so the platform
 * keeps the isolate up until they are with the queue (or, if the queue refuses, in D1, or logged
 * whole: AuditBuffer.flush). Nothing is acknowledged to anyone before that, and a record is never
 * in two groups.
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
  sent: Promise<void>;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Closes the group and flushes it, resolving when the flush is done; later calls resolve at once. */
  send: () => Promise<void>;
}

/**
 * Coalesces audit records into shared flushes, one open group per queue binding (the isolate's
 * env normally has one; tests may pass several).
 *
 * @example
 * ctx.waitUntil(auditGroupCommit.add(env, records));
 */
export class AuditGroupCommit {
  readonly #maxRecords: number;
  readonly #maxDelayMs: number;
  readonly #open = new WeakMap<AuditSinkEnv["AUDIT_QUEUE"], Group>();
  readonly #now: () => number;
  /** Groups sent and the records they carried, since the isolate started. */
  readonly #sent = { groups: 0, records: 0 };

  constructor({ maxRecords = GROUP_MAX_RECORDS, maxDelayMs = GROUP_MAX_DELAY_MS, now = () => Date.now() }: GroupCommitOptions = {}) {
    this.#maxRecords = maxRecords;
    this.#maxDelayMs = maxDelayMs;
    this.#now = now;
  }

  /**
   * Adds `records` to the open group. Returns the flush the caller must keep alive (its
   * `waitUntil`), or undefined when another request already does: the group's opener waits for
   * it (its timer sends the group), and a request that sends a group itself (full, or left
   * stale) waits for that send. Never rejects.
   *
   * Only one waitUntil per group, not one per request: in workerd each waitUntil is a native
   * call that holds its request's context open until the group is sent (up to maxDelayMs, so a
   * few hundred contexts at a time under load), and together they cost more CPU than the
   * records' send. The records are as safe: they are in the opener's group, whose flush the
   * opener's waitUntil keeps alive, and if the opener's timer never runs, the next request to
   * add records sends the group and waits for that.
   */
  add(env: AuditSinkEnv, records: readonly AuditRecord[]): Promise<void> | undefined {
    if (records.length === 0) return undefined;
    let mine: Promise<void> | undefined;
    const stale = this.#open.get(env.AUDIT_QUEUE);
    if (stale !== undefined && this.#now() - stale.openedAt >= STALE_GROUP_MS) mine = stale.send();
    let group = this.#open.get(env.AUDIT_QUEUE);
    if (group === undefined) {
      group = this.#openGroup(env);
      mine = mine === undefined ? group.sent : Promise.all([mine, group.sent]).then(() => undefined);
    }
    for (const record of records) group.buffer.add(record);
    if (group.buffer.size >= this.#maxRecords) {
      const sent = group.send();
      if (mine === undefined) mine = sent;
    }
    return mine;
  }

  /** How large the groups sent so far were: the benchmark models the queue's cost by it. */
  stats(): { groups: number; records: number } {
    return { ...this.#sent };
  }

  #openGroup(env: AuditSinkEnv): Group {
    const { promise, resolve } = Promise.withResolvers<void>();
    const group: Group = {
      buffer: new AuditBuffer(),
      openedAt: this.#now(),
      sent: promise,
      timer: undefined,
      send: () => {
        if (this.#open.get(env.AUDIT_QUEUE) !== group) return group.sent;
        // Closed before the flush starts: records added from now on open the next group.
        this.#open.delete(env.AUDIT_QUEUE);
        clearTimeout(group.timer);
        this.#sent.groups += 1;
        this.#sent.records += group.buffer.size;
        resolve(group.buffer.flush(env));
        return group.sent;
      },
    };
    group.timer = setTimeout(() => void group.send(), this.#maxDelayMs);
    this.#open.set(env.AUDIT_QUEUE, group);
    return group;
  }
}

/** The isolate's group commit, shared by every request it serves. */
export const auditGroupCommit = new AuditGroupCommit();
