/**
 * The optional signed notification sent when an approval is requested, so a person learns of
 * it without watching the page (a chat webhook, an on-call tool).
 *
 * The body is JSON; `X-Toolgate-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`
 * keyed with APPROVAL_NOTIFY_SECRET. Signing the timestamp with the body lets a receiver refuse
 * replays of an old notification (compare `t` with its clock). One attempt, bounded by a
 * timeout, through the outbound URL guard (redirects checked too); a failure is logged and the
 * approval is unaffected: the page and the listing still show it.
 */
import { fetchOutbound } from "../net/outbound-url.ts";
import type { ApprovalView } from "./approval-view.ts";
import { toWireApproval } from "./approval-wire.ts";

export const SIGNATURE_HEADER = "x-toolgate-signature";
/** How long a notification may take; it never delays the call, only the object's background work. */
export const NOTIFY_TIMEOUT_MS = 5_000;

const encoder = new TextEncoder();

/** Hex HMAC-SHA256 of `<t>.<body>` under `secret`: what `v1=` carries. */
export async function notificationSignature(secret: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`${timestamp}.${body}`));
  return Array.from(new Uint8Array(mac), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** POSTs `approval.requested` to the configured URL; never rejects. */
export async function notifyApprovalRequested(
  notify: { url: string; secret: string },
  approval: ApprovalView,
  pageUrl: string,
  allow: readonly string[],
): Promise<void> {
  const body = JSON.stringify({ type: "approval.requested", page_url: pageUrl, approval: toWireApproval(approval) });
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const signature = await notificationSignature(notify.secret, timestamp, body);
    const response = await fetchOutbound(
      notify.url,
      { method: "POST", body, headers: { "content-type": "application/json", [SIGNATURE_HEADER]: `t=${timestamp},v1=${signature}` }, signal: AbortSignal.timeout(NOTIFY_TIMEOUT_MS) },
      allow,
    );
    await response.body?.cancel();
    if (!response.ok) console.error(`approval ${approval.id}: notification answered HTTP ${response.status}`);
  } catch (error) {
    console.error(`approval ${approval.id}: notification failed: ${String(error)}`);
  }
}
