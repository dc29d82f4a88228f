/** The four signature schemes against signatures computed here, byte by byte. */
import { describe, expect, it } from "vitest";
import { signToolgate, verifySignature } from "../../src/webhooks/verify-signature.ts";
import { hmacHex } from "./support.ts";

const SECRET = "s3cret";
const encoder = new TextEncoder();
const NOW = 1_800_000_000_000;
const T = String(NOW / 1000);

describe("verifySignature", () => {
  it("accepts GitHub's signature and uses X-GitHub-Delivery as the delivery id", async () => {
    const body = encoder.encode('{"zen":"ok"}');
    const headers = new Headers({ "x-hub-signature-256": `sha256=${await hmacHex(SECRET, body)}`, "x-github-delivery": "72d3162e-cc78-11e3" });
    expect(await verifySignature("github", SECRET, body, headers, NOW)).toEqual({ ok: true, deliveryId: "72d3162e-cc78-11e3" });
  });

  it("checks the raw bytes: a body that differs only in whitespace is refused", async () => {
    const signed = encoder.encode('{"a":1}');
    const headers = new Headers({ "x-hub-signature-256": `sha256=${await hmacHex(SECRET, signed)}` });
    expect(await verifySignature("github", SECRET, encoder.encode('{"a": 1}'), headers, NOW)).toMatchObject({ ok: false, reason: "bad_signature" });
  });

  it("accepts any of several Stripe v1 signatures (a secret roll) and derives the id from the one that matched", async () => {
    const body = encoder.encode('{"id":"evt_1"}');
    const good = await hmacHex(SECRET, `${T}.{"id":"evt_1"}`);
    const headers = new Headers({ "stripe-signature": `t=${T},v1=${"0".repeat(64)},v1=${good}` });
    expect(await verifySignature("stripe", SECRET, body, headers, NOW)).toEqual({ ok: true, deliveryId: `sig:${good}` });
  });

  it("refuses a Stripe timestamp more than 300 s away in either direction, and accepts one at 300 s", async () => {
    const body = encoder.encode("{}");
    const at = async (t: number) =>
      verifySignature("stripe", SECRET, body, new Headers({ "stripe-signature": `t=${t},v1=${await hmacHex(SECRET, `${t}.{}`)}` }), NOW);
    expect(await at(NOW / 1000 - 301)).toMatchObject({ ok: false, reason: "stale_timestamp" });
    expect(await at(NOW / 1000 + 301)).toMatchObject({ ok: false, reason: "stale_timestamp" });
    expect(await at(NOW / 1000 - 300)).toMatchObject({ ok: true });
  });

  it("round-trips toolgate's own scheme, which the callbacks use", async () => {
    const body = encoder.encode('{"results":[]}');
    const headers = new Headers(await signToolgate(SECRET, body, NOW, "delivery-1"));
    expect(await verifySignature("hmac", SECRET, body, headers, NOW)).toEqual({ ok: true, deliveryId: "delivery-1" });
    expect(await verifySignature("hmac", "other", body, headers, NOW)).toMatchObject({ ok: false, reason: "bad_signature" });
  });

  it("accepts Slack's v0 signature over v0:<t>:<body>, and refuses a stale or altered one", async () => {
    const raw = '{"type":"event_callback","event_id":"Ev1"}';
    const body = encoder.encode(raw);
    const signed = async (t: string, text = raw) =>
      new Headers({ "x-slack-request-timestamp": t, "x-slack-signature": `v0=${await hmacHex(SECRET, `v0:${t}:${text}`)}` });
    const good = await hmacHex(SECRET, `v0:${T}:${raw}`);
    expect(await verifySignature("slack", SECRET, body, await signed(T), NOW)).toEqual({ ok: true, deliveryId: `sig:${good}` });
    expect(await verifySignature("slack", SECRET, body, await signed(T, raw.replace("Ev1", "Ev2")), NOW)).toMatchObject({ ok: false, reason: "bad_signature" });
    expect(await verifySignature("slack", "other", body, await signed(T), NOW)).toMatchObject({ ok: false, reason: "bad_signature" });
    const old = String(NOW / 1000 - 301);
    expect(await verifySignature("slack", SECRET, body, await signed(old), NOW)).toMatchObject({ ok: false, reason: "stale_timestamp" });
    // Stripe's prefix is not Slack's: "<t>." signed bytes do not pass as "v0:<t>:".
    const stripeStyle = new Headers({ "x-slack-request-timestamp": T, "x-slack-signature": `v0=${await hmacHex(SECRET, `${T}.${raw}`)}` });
    expect(await verifySignature("slack", SECRET, body, stripeStyle, NOW)).toMatchObject({ ok: false, reason: "bad_signature" });
  });

  it.each([
    ["slack", { "x-slack-request-timestamp": T }],
    ["slack", { "x-slack-signature": `v0=${"a".repeat(64)}` }],
    ["github", {}],
    ["stripe", {}],
    ["hmac", { "x-toolgate-timestamp": T }],
    ["hmac", { "x-toolgate-signature-256": `sha256=${"a".repeat(64)}` }],
  ] as const)("says the signature is missing (%s, %j)", async (scheme, headers) => {
    expect(await verifySignature(scheme, SECRET, encoder.encode("{}"), new Headers(headers), NOW)).toMatchObject({ ok: false, reason: "missing_signature" });
  });

  it.each(["sha256=", "sha256=abc", `sha1=${"a".repeat(64)}`, `sha256=${"g".repeat(64)}`])("refuses the malformed GitHub signature %j", async (value) => {
    expect(await verifySignature("github", SECRET, encoder.encode("{}"), new Headers({ "x-hub-signature-256": value }), NOW)).toMatchObject({
      ok: false,
      reason: "bad_signature",
    });
  });
});
