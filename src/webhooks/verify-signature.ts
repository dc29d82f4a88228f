/**
 * Checks that a delivery was signed by someone holding the webhook's secret, over the raw bytes of
 * its body, with one of three schemes:
 *
 * - `github`: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>`; GitHub's own id in
 *   `X-GitHub-Delivery`. No timestamp: replays are stopped by the delivery id alone.
 * - `stripe`: `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC(secret, "<t>." + body)>` (several
 *   `v1` allowed, as during a secret roll), `t` within 5 minutes of now.
 * - `slack`: `X-Slack-Request-Timestamp: <unix seconds>` and `X-Slack-Signature: v0=<hex
 *   HMAC(secret, "v0:<t>:" + body)>` (the app's signing secret), `t` within 5 minutes. Slack sends
 *   no delivery id in a header; its retries are signed anew, so a Slack webhook should return the
 *   payload's `event_id` from `deliveryId`.
 * - `hmac`: toolgate's own, also used to sign our callbacks: `X-Toolgate-Timestamp: <unix
 *   seconds>` and `X-Toolgate-Signature-256: sha256=<hex HMAC(secret, "<t>." + body)>`, optional
 *   `X-Toolgate-Delivery: <id>`; `t` within 5 minutes.
 *
 * MACs are compared by `crypto.subtle.verify`, which compares in constant time over the bytes;
 * hex that does not decode to 32 bytes is refused before any comparison.
 */
import { hmacSha256Hex, hmacSha256Matches } from "../crypto/hmac.ts";
import type { VerifyScheme } from "./webhook-registry.ts";

/** Stripe's default tolerance, used for every timestamped scheme. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export const TOOLGATE_SIGNATURE_HEADER = "x-toolgate-signature-256";
export const TOOLGATE_TIMESTAMP_HEADER = "x-toolgate-timestamp";
export const TOOLGATE_DELIVERY_HEADER = "x-toolgate-delivery";

export type SignatureRefusal = "missing_signature" | "bad_signature" | "stale_timestamp";

export type VerifyResult =
  /** `deliveryId`: the sender's id, or one derived from the signature (unique per signed request). */
  { ok: true; deliveryId: string } | { ok: false; reason: SignatureRefusal; detail: string };

const encoder = new TextEncoder();
const MAC_BYTES = 32;
/** Ids from senders are stored and compared; anything longer or stranger is not an id. */
const DELIVERY_ID = /^[\x21-\x7e]{1,200}$/;

function hexToBytes(hex: string): Uint8Array | undefined {
  if (hex.length !== MAC_BYTES * 2 || !/^[0-9a-fA-F]+$/.test(hex)) return undefined;
  const bytes = new Uint8Array(MAC_BYTES);
  for (let i = 0; i < MAC_BYTES; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** `prefix` followed by the body's bytes, exactly as received (never a re-encoded string). */
function prefixed(prefixText: string, body: Uint8Array): Uint8Array {
  const prefix = encoder.encode(prefixText);
  const data = new Uint8Array(prefix.length + body.length);
  data.set(prefix, 0);
  data.set(body, prefix.length);
  return data;
}

async function macMatches(secret: string, hex: string, data: Uint8Array): Promise<boolean> {
  const mac = hexToBytes(hex);
  if (mac === undefined) return false;
  return hmacSha256Matches(secret, mac, data);
}

/** HMAC-SHA256 of `data` as `sha256=<hex>`, the form our callbacks carry. */
export async function signHex(secret: string, data: Uint8Array): Promise<string> {
  return `sha256=${await hmacSha256Hex(secret, data)}`;
}

/** Signs a body with the `hmac` scheme; returns the headers to send with it. */
export async function signToolgate(secret: string, body: Uint8Array, nowMs: number, deliveryId: string): Promise<Record<string, string>> {
  const timestamp = String(Math.floor(nowMs / 1000));
  return {
    [TOOLGATE_TIMESTAMP_HEADER]: timestamp,
    [TOOLGATE_SIGNATURE_HEADER]: await signHex(secret, prefixed(`${timestamp}.`, body)),
    [TOOLGATE_DELIVERY_HEADER]: deliveryId,
  };
}

function fresh(timestamp: string, nowMs: number): VerifyResult | undefined {
  const seconds = Number(timestamp);
  const skew = Math.abs(nowMs / 1000 - seconds);
  if (skew > SIGNATURE_TOLERANCE_SECONDS) {
    return {
      ok: false,
      reason: "stale_timestamp",
      detail: `timestamp ${timestamp} is ${Math.round(skew)} s from now; at most ${SIGNATURE_TOLERANCE_SECONDS} s is accepted`,
    };
  }
  return undefined;
}

const missing = (header: string): VerifyResult => ({ ok: false, reason: "missing_signature", detail: `no ${header} header` });
const mismatch = (header: string): VerifyResult => ({ ok: false, reason: "bad_signature", detail: `${header} does not match the body and the hook's secret` });

function senderId(headers: Headers, header: string, signature: string): string {
  const sent = headers.get(header)?.trim();
  return sent !== undefined && DELIVERY_ID.test(sent) ? sent : `sig:${signature.toLowerCase()}`;
}

/**
 * Verifies one delivery. `secret` must be non-empty (the route refuses webhooks without one first).
 *
 * @example
 * const verdict = await verifySignature("github", secret, bytes, c.req.raw.headers, Date.now());
 * if (!verdict.ok) return refuse(verdict.reason);
 */
export async function verifySignature(scheme: VerifyScheme, secret: string, body: Uint8Array, headers: Headers, nowMs: number): Promise<VerifyResult> {
  switch (scheme) {
    case "github": {
      const header = "X-Hub-Signature-256";
      const value = headers.get(header)?.trim();
      if (value === undefined || value === "") return missing(header);
      const hex = /^sha256=([0-9a-fA-F]+)$/.exec(value)?.[1];
      if (hex === undefined || !(await macMatches(secret, hex, body))) return mismatch(header);
      return { ok: true, deliveryId: senderId(headers, "X-GitHub-Delivery", hex) };
    }
    case "stripe": {
      const header = "Stripe-Signature";
      const value = headers.get(header)?.trim();
      if (value === undefined || value === "") return missing(header);
      const fields = value.split(",").map((part) => part.trim().split("="));
      const timestamp = fields.find(([k]) => k === "t")?.[1];
      const candidates = fields.filter(([k]) => k === "v1").map(([, v]) => v ?? "");
      if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp) || candidates.length === 0) return mismatch(header);
      const data = prefixed(`${timestamp}.`, body);
      let matched: string | undefined;
      for (const candidate of candidates.slice(0, 8)) {
        if (await macMatches(secret, candidate, data)) matched = candidate;
      }
      if (matched === undefined) return mismatch(header);
      return fresh(timestamp, nowMs) ?? { ok: true, deliveryId: `sig:${matched.toLowerCase()}` };
    }
    case "slack": {
      const header = "X-Slack-Signature";
      const value = headers.get(header)?.trim();
      const timestamp = headers.get("X-Slack-Request-Timestamp")?.trim();
      if (value === undefined || value === "") return missing(header);
      if (timestamp === undefined || timestamp === "") return missing("X-Slack-Request-Timestamp");
      const hex = /^v0=([0-9a-fA-F]+)$/.exec(value)?.[1];
      if (hex === undefined || !/^\d{1,12}$/.test(timestamp) || !(await macMatches(secret, hex, prefixed(`v0:${timestamp}:`, body)))) return mismatch(header);
      return fresh(timestamp, nowMs) ?? { ok: true, deliveryId: `sig:${hex.toLowerCase()}` };
    }
    case "hmac": {
      const value = headers.get(TOOLGATE_SIGNATURE_HEADER)?.trim();
      const timestamp = headers.get(TOOLGATE_TIMESTAMP_HEADER)?.trim();
      if (value === undefined || value === "") return missing("X-Toolgate-Signature-256");
      if (timestamp === undefined || timestamp === "") return missing("X-Toolgate-Timestamp");
      const hex = /^sha256=([0-9a-fA-F]+)$/.exec(value)?.[1];
      if (hex === undefined || !/^\d{1,12}$/.test(timestamp) || !(await macMatches(secret, hex, prefixed(`${timestamp}.`, body)))) {
        return mismatch("X-Toolgate-Signature-256");
      }
      return fresh(timestamp, nowMs) ?? { ok: true, deliveryId: senderId(headers, TOOLGATE_DELIVERY_HEADER, hex) };
    }
  }
}
