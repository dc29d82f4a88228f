/**
 * Group commit for audit records: the records of concurrent requests in one isolate go to the
 * queue together, in one `sendBatch`, instead of one `sendBatch` per request. A send costs about
 * the same for one record as for a hundred, so under load this divides the audit's cost by the
 * group size; a lone request waits at most `maxDelayMs` (after its response) for company.
 *
 * Durability: a group is sent by its opener's timer, or early by the request whose records fill
 * it (or find it stale), and each of those requests' `waitUntil` awaits that flush, so the
 * platform keeps the isolate alive until the group is with the queue (or, if the queue refuses,
 * in D1, or logged whole: AuditBuffer.flush). Nothing is acknowledged to anyone before that, and a
 * record is never in two groups. A request that only joins a group holds no `waitUntil` of its
 * own: one would keep nothing alive that the opener's does not (only those requests send), and
 * workerd's waitUntil on a promise that many requests share cost several times the CPU of the
 * record itself (measured, 2026-12-01: up to 250 us per request at a few hundred calls a second).
 */
import { AuditBuffer, type AuditSinkEnv } from "./audit-buffer.ts";
import type { AuditRecord } from "./audit-record.ts";

/**
 * The defaults, from a sweep of group sizes (`audit-cost`'s queue stage, 2026-12-01): a send
 * has a fixed cost, so per record the queue path cost about 90-150 us in groups of 10, 50-80 in
 * groups of 30, 45-55 in groups of 60 and 33-47 in groups of 200. At the bench's few hundred calls
 * a second, 50 ms gathered groups of 20-50; 200 ms gathers several times more. The price is
 * that a request's waitUntil lasts up to 200 ms after its response, and that an isolate which
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

/** Records of one request, or how to build them when their group is sent (their count is known now). */
interface Pending {
  count: number;
  build: () => readonly AuditRecord[];
}

interface Group {
  pending: Pending[];
  size: number;
  openedAt: number;
  sent: Promise<void>;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Closes the group and flushes it, resolving when done; later calls do nothing. `defer` moves the work to a later turn. */
  send: (defer: boolean) => Promise<void>;
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

  constructor({ maxRecords = GROUP_MAX_RECORDS, maxDelayMs = GROUP_MAX_DELAY_MS, now = () => Date.now() }: GroupCommitOptions = {}) {
    this.#maxRecords = maxRecords;
    this.#maxDelayMs = maxDelayMs;
    this.#now = now;
  }

  /** Adds `records` to the open group; resolves once that group's flush is done. Never rejects. */
  add(env: AuditSinkEnv, records: readonly AuditRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    return this.#enqueue(env, records.length, () => records).group.sent;
  }

  /**
   * Like `add`, for `count` records that `build` makes only when their group is sent. Building
   * (redaction, canonical JSON) must not delay a response, and the group's own timer already
   * runs after it: so a request needs no timer of its own, which cost more than the record.
   * `build` must not depend on the code's current request: it runs in another request's timer.
   *
   * Returns what the caller must hand its `waitUntil`: the flush this call's request started or
   * will start (it opened the group, or sent one), or undefined when another request's does that.
   * Never rejects.
   */
  addLater(env: AuditSinkEnv, count: number, build: () => readonly AuditRecord[]): Promise<void> | undefined {
    if (count === 0) return undefined;
    return this.#enqueue(env, count, build).keepAlive;
  }

  #enqueue(env: AuditSinkEnv, count: number, build: () => readonly AuditRecord[]): { group: Group; keepAlive: Promise<void> | undefined } {
    const flushes: Promise<void>[] = [];
    const stale = this.#open.get(env.AUDIT_QUEUE);
    if (stale !== undefined && this.#now() - stale.openedAt >= STALE_GROUP_MS) flushes.push(stale.send(true));
    let group = this.#open.get(env.AUDIT_QUEUE);
    if (group === undefined) {
      group = this.#openGroup(env);
      flushes.push(group.sent);
    }
    group.pending.push({ count, build });
    group.size += count;
    if (group.size >= this.#maxRecords) flushes.push(group.send(true));
    return { group, keepAlive: flushes.length === 0 ? undefined : flushes.length === 1 ? flushes[0] : Promise.all(flushes).then(settled) };
  }

  #openGroup(env: AuditSinkEnv): Group {
    const { promise, resolve } = Promise.withResolvers<void>();
    const flush = () => buildAll(group.pending).flush(env);
    const group: Group = {
      pending: [],
      size: 0,
      openedAt: this.#now(),
      sent: promise,
      timer: undefined,
      send: (defer) => {
        if (this.#open.get(env.AUDIT_QUEUE) !== group) return group.sent;
        // Closed before the flush starts: records added from now on open the next group.
        this.#open.delete(env.AUDIT_QUEUE);
        clearTimeout(group.timer);
        // Sent from `add` (full, or stale), the caller may not have answered yet: build after it.
        const flushed = defer ? new Promise<void>((done) => setTimeout(done, 0)).then(flush) : flush();
        resolve(flushed);
        return flushed;
      },
    };
    group.timer = setTimeout(() => void group.send(false), this.#maxDelayMs);
    this.#open.set(env.AUDIT_QUEUE, group);
    return group;
  }
}

function settled(): void {}

/** The group's records in a buffer; a builder that throws loses its own records only (logged). */
function buildAll(pending: readonly Pending[]): AuditBuffer {
  const buffer = new AuditBuffer();
  for (const { count, build } of pending) {
    try {
      for (const record of build()) buffer.add(record);
    } catch (error) {
      console.error(`AUDIT RECORDS LOST: building ${count} record(s) failed: ${String(error)}`);
    }
  }
  return buffer;
}

/** The isolate's group commit, shared by every request it serves. */
export const auditGroupCommit = new AuditGroupCommit();
