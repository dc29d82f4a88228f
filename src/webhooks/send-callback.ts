/**
 * POSTs a finished delivery's results to its webhook's callback URL, signed with the webhook's secret
 * by the `hmac` scheme (verify-signature.ts), so the receiver checks us exactly as we check
 * generic senders: `X-Toolgate-Signature-256: sha256=<hex HMAC(secret, "<t>." + body)>`,
 * `X-Toolgate-Timestamp: <t>`, and `X-Toolgate-Delivery: <delivery id>` to drop duplicates.
 *
 * The URL, and every redirect hop, passes the outbound guard (src/net/outbound-url.ts); a refused
 * URL is final. Any other failure is transient: the caller retries the queue message with
 * backoff, so retries survive the isolate and are spaced by the queue, not by a sleeping Worker.
 */
import { fetchOutbound, OutboundUrlError } from "../net/outbound-url.ts";
import type { Delivery, RunOutcome, StoredCallResult } from "./delivery-store.ts";
import { signToolgate } from "./verify-signature.ts";

/** One attempt's wait for the receiver; a slower receiver is retried later. */
const CALLBACK_TIMEOUT_MS = 10_000;

export type CallbackAttempt = { kind: "delivered"; status: number } | { kind: "refused"; reason: string } | { kind: "failed"; reason: string };

/** The body a callback receiver gets. */
export interface CallbackBody {
  delivery_id: string;
  hook: string;
  provider_delivery_id: string;
  status: string;
  results: readonly StoredCallResult[];
  /** A run webhook's run: its id, how it ended and its answer; `results` then holds the reply call's. */
  run?: RunOutcome;
}

const encoder = new TextEncoder();

/** One signed POST of the results; never throws. */
export async function sendCallback(
  url: string,
  delivery: Pick<Delivery, "id" | "hook" | "providerDeliveryId" | "runOutcome">,
  outcome: { status: string; results: readonly StoredCallResult[] },
  secret: string,
  allow: readonly string[],
): Promise<CallbackAttempt> {
  const body: CallbackBody = {
    delivery_id: delivery.id,
    hook: delivery.hook,
    provider_delivery_id: delivery.providerDeliveryId,
    status: outcome.status,
    results: outcome.results,
    ...(delivery.runOutcome == null ? {} : { run: delivery.runOutcome }),
  };
  const bytes = encoder.encode(JSON.stringify(body));
  const headers = { "content-type": "application/json", "user-agent": "toolgate-webhooks", ...(await signToolgate(secret, bytes, Date.now(), delivery.id)) };
  try {
    const response = await fetchOutbound(url, { method: "POST", headers, body: bytes, signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS) }, allow);
    await response.body?.cancel();
    if (response.ok) return { kind: "delivered", status: response.status };
    return { kind: "failed", reason: `the callback URL answered ${response.status}` };
  } catch (error) {
    if (error instanceof OutboundUrlError) return { kind: "refused", reason: `callback URL refused by the outbound guard: ${error.message}` };
    return { kind: "failed", reason: `the callback could not be sent: ${error instanceof Error ? error.message : String(error)}` };
  }
}
