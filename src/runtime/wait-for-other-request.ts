/**
 * Waiting, in one request, for work another request of the same isolate started (a lease round
 * trip, an availability check, a group of audit records). On workerd, that work's I/O belongs to
 * the request that started it: when that request ends or is cancelled (a client that hangs up),
 * its pending I/O never settles, and a request awaiting it would wait forever, until the runtime
 * cancels it as hung. One client's disconnect must not fail another client's call, so a waiter
 * also sets a timer of its own and, when it fires first, goes on without the other's result.
 */

/** The other request's result, or `settled: false` when it did not come within `maxMs`. */
export type Waited<T> = { settled: true; value: T } | { settled: false };

/**
 * Waits for `shared` at most `maxMs` on this request's own timer. A rejection counts as settled
 * and is rethrown; the caller decides whether it cares.
 *
 * @example
 * const waited = await waitForOtherRequest(state.inflight, LEASE_WAIT_MS);
 * if (!waited.settled) state.inflight = undefined; // stale: its request is gone
 */
export async function waitForOtherRequest<T>(shared: Promise<T>, maxMs: number): Promise<Waited<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gaveUp = new Promise<Waited<T>>((resolve) => {
    timer = setTimeout(() => resolve({ settled: false }), maxMs);
  });
  try {
    return await Promise.race([shared.then((value): Waited<T> => ({ settled: true, value })), gaveUp]);
  } finally {
    clearTimeout(timer);
  }
}
