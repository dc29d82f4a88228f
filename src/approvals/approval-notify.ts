/**
 * The optional signed notification sent when an approval is requested, so a person learns of
 * it without watching the page (a chat webhook, an on-call tool).
 *
 * The body is JSON; `X-Toolgate-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`
 * keyed with APPROVAL_NOTIFY_SECRET. Signing the timestamp with the body lets a receiver refuse
 * replays of an old notification (compare `t` with its clock). Sent through the outbound URL
 * guard (redirects checked too), each attempt bounded by a timeout; a network failure, a timeout,
 * 429 or a 5xx is tried again (NOTIFY_RETRY_DELAYS_MS) while the approval is still pending, since
 * a notification about a settled approval would only mislead. Delivery is at least once: a
 * receiver that timed out on an attempt it did process sees the approval again, with the same
 * `approval.id` to deduplicate by. A final failure is logged and the approval is unaffected: the
 * page and the listing still show it.
 */
import { hmacSha256Hex } from "../crypto/hmac.ts";
import { fetchOutbound, OutboundUrlError } from "../net/outbound-url.ts";
import type { ApprovalView } from "./approval-view.ts";
import { toWireApproval } from "./approval-wire.ts";

export const SIGNATURE_HEADER = "x-toolgate-signature";
/** How long a notification may take; it never delays the call, only the object's background work. */
const NOTIFY_TIMEOUT_MS = 5_000;
/** Waits before the second and third attempts: a receiver's brief outage, not a long one. */
const NOTIFY_RETRY_DELAYS_MS = [1_000, 5_000] as const;

/** Answers worth another attempt: the receiver is overloaded or failing, not refusing us. */
const retryable = (status: number): boolean => status === 429 || status >= 500;

/** Hex HMAC-SHA256 of `<t>.<body>` under `secret`: what `v1=` carries. */
export function notificationSignature(secret: string, timestamp: number, body: string): Promise<string> {
  return hmacSha256Hex(secret, `${timestamp}.${body}`);
}

/**
 * POSTs `approval.requested` to the configured URL, retrying as the module says while
 * `stillPending()` holds; never rejects.
 */
export async function notifyApprovalRequested(
  notify: { url: string; secret: string },
  approval: ApprovalView,
  pageUrl: string,
  allow: readonly string[],
  stillPending: () => boolean = () => true,
): Promise<void> {
  const body = JSON.stringify({ type: "approval.requested", page_url: pageUrl, approval: toWireApproval(approval) });
  for (let attempt = 0; ; attempt++) {
    const failure = await attemptNotification(notify, body, allow);
    if (failure === undefined) return;
    const delay = NOTIFY_RETRY_DELAYS_MS[attempt];
    if (!failure.retry || delay === undefined) {
      console.error(`approval ${approval.id}: notification failed after ${attempt + 1} attempt(s): ${failure.message}`);
      return;
    }
    console.warn(`approval ${approval.id}: notification attempt ${attempt + 1} failed (${failure.message}); retrying in ${delay} ms`);
    await new Promise((resolve) => setTimeout(resolve, delay));
    if (!stillPending()) return;
  }
}

/** One signed POST; undefined when it was accepted (2xx). */
async function attemptNotification(
  notify: { url: string; secret: string },
  body: string,
  allow: readonly string[],
): Promise<{ retry: boolean; message: string } | undefined> {
  // Signed per attempt, so `t` is the time this attempt was sent.
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const signature = await notificationSignature(notify.secret, timestamp, body);
    const response = await fetchOutbound(
      notify.url,
      {
        method: "POST",
        body,
        headers: { "content-type": "application/json", [SIGNATURE_HEADER]: `t=${timestamp},v1=${signature}` },
        signal: AbortSignal.timeout(NOTIFY_TIMEOUT_MS),
      },
      allow,
    );
    await response.body?.cancel();
    return response.ok ? undefined : { retry: retryable(response.status), message: `HTTP ${response.status}` };
  } catch (error) {
    // A URL the outbound guard refuses fails the same way every time; anything else may pass.
    return { retry: !(error instanceof OutboundUrlError), message: String(error) };
  }
}
