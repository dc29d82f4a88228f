/**
 * A waiting delivery's results with every settled approval applied. The Session object of the
 * delivery (session id = delivery id) holds the truth, so every call still pending is read from
 * it, not only the one a message names: a redelivered or late message then changes nothing, and
 * the message that comes second of two settling at once applies both.
 */

import { isSettled } from "../approvals/approval-view.ts";
import { sessionStub } from "../approvals/session-stub.ts";
import type { Delivery, StoredCallResult } from "./delivery-store.ts";

export interface SettledResults {
  results: StoredCallResult[];
  /** The calls whose result this changed (pending → the approval's outcome). */
  changed: StoredCallResult[];
}

/**
 * The stored results, each pending call replaced by its approval's outcome once settled: the
 * tool's message after an approved run, or the APPROVAL_DENIED / APPROVAL_EXPIRED / interrupted
 * or PERMISSION_DENIED envelope. `duration_ms` and `attempts` stay those of the request that
 * asked; the approved run's own figures are in its audit record.
 */
export async function settledResults(env: Env, delivery: Pick<Delivery, "id" | "results">): Promise<SettledResults> {
  const session = sessionStub(env, delivery.id);
  const results = await Promise.all(
    (delivery.results ?? []).map(async (result): Promise<StoredCallResult> => {
      if (result.status !== "pending_approval" || result.approval === undefined) return result;
      const view = await session.get(result.approval.id, delivery.id);
      if (view === undefined || !isSettled(view) || view.result === undefined) return result;
      return { ...result, status: view.result.status, error_code: view.result.errorCode, content: view.result.content };
    }),
  );
  const changed = results.filter((result, i) => result !== delivery.results?.[i]);
  return { results, changed };
}
