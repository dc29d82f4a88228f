/**
 * Each calling key's MCP resource subscriptions in an MCP session (resources/subscribe), kept in
 * the Session object's KV storage (session-schema.ts) beside its approvals, so they outlive an
 * isolate and a dropped stream, and end with the session's object, never with a request.
 */
import type { SubscriptionAnswer, SubscriptionChange } from "./session-api.ts";
import { sessionSubscriptionsKey } from "./session-schema.ts";

/** Per key and session: far more resources than a client watches at once, and a bound on the list each change rewrites. */
export const MAX_SESSION_SUBSCRIPTIONS = 64;

/** Applies one change with no `await` between read and write, so concurrent changes of one session never lose each other. */
export function sessionSubscriptions(kv: SyncKvStorage, { keyId, uri, action }: SubscriptionChange): SubscriptionAnswer {
  const key = sessionSubscriptionsKey(keyId);
  const current = kv.get<string[]>(key) ?? [];
  const subscribed = current.includes(uri);
  if (action === "check" || (action === "subscribe") === subscribed) return { subscribed };
  if (action === "unsubscribe") {
    const rest = current.filter((entry) => entry !== uri);
    if (rest.length === 0) kv.delete(key);
    else kv.put(key, rest);
    return { subscribed: false };
  }
  if (current.length >= MAX_SESSION_SUBSCRIPTIONS) return { subscribed: false, full: true };
  kv.put(key, [...current, uri]);
  return { subscribed: true };
}
