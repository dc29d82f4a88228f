/**
 * POST /v1/hooks/{name} end to end through the Worker's fetch handler: real signatures computed
 * in the test, the real queue and its consumer, D1 and the audit log. Each test uses its own
 * webhook name (and probe keys), so events and counts never mix.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";
import { waitForAuditRows } from "../support/wait-for-audit-rows.ts";
import { genericHeaders, githubHeaders, nowSeconds, post, probeRuns, registerProbeWebhook, stripeHeaders, waitForDelivery, webhookEvents } from "./support.ts";

interface Accepted {
  delivery_id: string;
  status: string;
  calls?: number;
  replay: boolean;
}

const keysBody = (...keys: string[]): string => JSON.stringify({ keys });

async function deliveryRows(hook: string): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM hook_deliveries WHERE hook = ?").bind(hook).first<{ n: number }>();
  return row?.n ?? 0;
}

describe("verified deliveries run their calls", () => {
  it("a generic HMAC delivery is answered 202 with a delivery id, then its calls run in the background", async () => {
    registerProbeWebhook("t-generic-ok");
    const body = keysBody("gen-ok-1", "gen-ok-2");
    const res = await post("t-generic-ok", body, await genericHeaders(body));
    expect(res.status).toBe(202);
    const accepted = await json<Accepted>(res);
    expect(accepted).toMatchObject({ status: "queued", calls: 2, replay: false });
    const view = await waitForDelivery(accepted.delivery_id);
    expect(view.status).toBe("done");
    expect(view.results?.map((r) => [r.id, r.status])).toEqual([
      ["probe_0", "ok"],
      ["probe_1", "ok"],
    ]);
    expect(probeRuns.get("gen-ok-1")).toBe(1);
    expect((await webhookEvents("t-generic-ok", 2)).map((e) => e.outcome)).toEqual(["accepted", "done"]);
  });

  it("a GitHub-signed delivery (X-Hub-Signature-256 over the raw body) runs, as the hook's principal, with tool-call audit records", async () => {
    registerProbeWebhook("t-github", { verify: "github" });
    const body = keysBody("gh-run");
    const res = await post("t-github", body, await githubHeaders(body));
    expect(res.status).toBe(202);
    const { delivery_id } = await json<Accepted>(res);
    expect((await waitForDelivery(delivery_id)).results?.[0]).toMatchObject({ tool: "hook_probe", status: "ok" });
    const audit = await waitForAuditRows("session_id = ?", [delivery_id]);
    expect(audit[0]).toMatchObject({ key_id: "hook:t-github", tool: "hook_probe", status: "ok", tool_call_id: "probe_0" });
  });

  it("a Stripe-style delivery (t=...,v1=... over '<t>.<body>') runs", async () => {
    registerProbeWebhook("t-stripe", { verify: "stripe" });
    const body = keysBody("stripe-run");
    const res = await post("t-stripe", body, await stripeHeaders(body));
    expect(res.status).toBe(202);
    expect((await waitForDelivery((await json<Accepted>(res)).delivery_id)).status).toBe("done");
    expect(probeRuns.get("stripe-run")).toBe(1);
  });
});

describe("refused deliveries run nothing and are audited", () => {
  it.each([
    ["a flipped byte in the body", async (body: string) => ({ body: body.replace("refuse", "refusE"), headers: await githubHeaders(body) })],
    ["a wrong secret", async (body: string) => ({ body, headers: await githubHeaders(body, { secret: "not-the-secret" }) })],
    ["no signature", async (body: string) => ({ body, headers: { "x-github-delivery": crypto.randomUUID() } })],
    [
      "a signature that is not hex",
      async (body: string) => ({ body, headers: { "x-hub-signature-256": "sha256=zz", "x-github-delivery": crypto.randomUUID() } }),
    ],
  ])("GitHub scheme: %s is answered 401", async (_case, make) => {
    registerProbeWebhook("t-refuse-gh", { verify: "github" });
    const before = await deliveryRows("t-refuse-gh");
    const { body, headers } = await make(keysBody("refuse-gh"));
    const res = await post("t-refuse-gh", body, headers);
    expect(res.status).toBe(401);
    expect(await json(res)).toMatchObject({ error_code: "INVALID_SIGNATURE" });
    expect(await deliveryRows("t-refuse-gh")).toBe(before);
    expect(probeRuns.get("refuse-gh")).toBeUndefined();
  });

  it("records each refusal with its reason", async () => {
    registerProbeWebhook("t-refuse-audit", { verify: "github" });
    const body = keysBody("refuse-audit");
    await post("t-refuse-audit", body.replace("}", " }"), await githubHeaders(body));
    await post("t-refuse-audit", body, await githubHeaders(body, { secret: "wrong" }));
    await post("t-refuse-audit", body, {});
    const events = await webhookEvents("t-refuse-audit", 3);
    expect(events.map((e) => e.outcome).sort()).toEqual(["bad_signature", "bad_signature", "missing_signature"]);
    expect(events.every((e) => e.delivery_id === null)).toBe(true);
    expect(probeRuns.get("refuse-audit")).toBeUndefined();
  });

  it("refuses a stale timestamp (5 minutes) on the Stripe-style and generic schemes, though the signature is right", async () => {
    registerProbeWebhook("t-stale-stripe", { verify: "stripe" });
    registerProbeWebhook("t-stale-generic");
    const body = keysBody("stale");
    const stripe = await post("t-stale-stripe", body, await stripeHeaders(body, { t: nowSeconds() - 301 }));
    const generic = await post("t-stale-generic", body, await genericHeaders(body, { t: nowSeconds() + 400 }));
    for (const res of [stripe, generic]) {
      expect(res.status).toBe(401);
      expect(await json(res)).toMatchObject({ error_code: "STALE_TIMESTAMP" });
    }
    expect((await webhookEvents("t-stale-stripe")).map((e) => e.outcome)).toEqual(["stale_timestamp"]);
    expect((await webhookEvents("t-stale-generic")).map((e) => e.outcome)).toEqual(["stale_timestamp"]);
    expect(probeRuns.get("stale")).toBeUndefined();
  });

  it("refuses every delivery to a hook whose secret is not configured, however it is signed", async () => {
    registerProbeWebhook("t-no-secret", { secretEnv: "HOOK_UNSET_SECRET" });
    const body = keysBody("no-secret");
    const res = await post("t-no-secret", body, await genericHeaders(body, { secret: "any-secret-at-all" }));
    expect(res.status).toBe(401);
    expect(await json(res)).toMatchObject({ error_code: "HOOK_NOT_CONFIGURED" });
    expect((await webhookEvents("t-no-secret")).map((e) => [e.outcome, e.detail])).toEqual([["no_secret", "HOOK_UNSET_SECRET is not set"]]);
  });

  it("answers 413 JSON to a body over MAX_BODY_BYTES and records it", async () => {
    registerProbeWebhook("t-too-large");
    const body = `{"keys":["${"x".repeat(1_048_576)}"]}`;
    const res = await post("t-too-large", body, await genericHeaders(body));
    expect(res.status).toBe(413);
    expect(await json(res)).toMatchObject({ error_code: "PAYLOAD_TOO_LARGE" });
    expect((await webhookEvents("t-too-large")).map((e) => e.outcome)).toEqual(["too_large"]);
  });

  it("answers 400 to a signed body that is not JSON, or that the hook's schema refuses", async () => {
    registerProbeWebhook("t-bad-payload");
    const notJson = "{keys:";
    const malformed = await post("t-bad-payload", notJson, await genericHeaders(notJson));
    expect(malformed.status).toBe(400);
    expect(await json(malformed)).toMatchObject({ error_code: "MALFORMED_BODY" });
    const wrongShape = JSON.stringify({ keys: "one" });
    const refused = await post("t-bad-payload", wrongShape, await genericHeaders(wrongShape));
    expect(refused.status).toBe(400);
    expect(await json(refused)).toMatchObject({ error_code: "INVALID_REQUEST", issues: [{ path: "keys" }] });
    expect((await webhookEvents("t-bad-payload", 2)).map((e) => e.outcome)).toEqual(["malformed_payload", "rejected_payload"]);
  });

  it("answers 415 to a signed form-encoded body and 400 when the hook's mapping throws, and records both", async () => {
    registerProbeWebhook("t-form");
    registerProbeWebhook("t-map-throws", {
      map: () => {
        throw new Error("no calls for this event");
      },
    });
    const form = "payload=%7B%7D";
    const formRes = await post("t-form", form, { ...(await genericHeaders(form)), "content-type": "application/x-www-form-urlencoded" });
    expect(formRes.status).toBe(415);
    expect(await json(formRes)).toMatchObject({ error_code: "UNSUPPORTED_MEDIA_TYPE" });
    const body = keysBody("map-throws");
    const thrown = await post("t-map-throws", body, await genericHeaders(body));
    expect(thrown.status).toBe(400);
    expect(JSON.stringify(await json(thrown))).toContain("no calls for this event");
    expect((await webhookEvents("t-form")).map((e) => e.outcome)).toEqual(["unsupported_media_type"]);
    expect((await webhookEvents("t-map-throws")).map((e) => e.outcome)).toEqual(["rejected_payload"]);
  });

  it("answers 404 JSON for an unknown hook, without a key", async () => {
    const res = await post("no-such-hook", "{}", {});
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({ error_code: "UNKNOWN_HOOK" });
  });
});

describe("hostile payloads", () => {
  const deepJson = (levels: number): string => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

  it("refuses a body of 1,000,000 keys at the door (413), before it is parsed", async () => {
    const body = `{${Array.from({ length: 1_000_000 }, (_, i) => `"k${i}":1`).join(",")}}`;
    const res = await post("generic", body, await genericHeaders(body));
    expect(res.status).toBe(413);
  });

  it("answers a payload nested 10,000 deep with the shipped generic hook's schema refusal", async () => {
    const body = `{"tool_calls":[],"x":${deepJson(10_000)}}`;
    const ok = await post("generic", body, await genericHeaders(body));
    // The schema reads only tool_calls; the deep member is never walked, and nothing runs.
    expect(ok.status).toBe(202);
    expect(await json(ok)).toMatchObject({ status: "done", calls: 0 });
    const deepCalls = `{"tool_calls":${deepJson(10_000)}}`;
    const refused = await post("generic", deepCalls, await genericHeaders(deepCalls));
    expect(refused.status).toBe(400);
    expect(await json(refused)).toMatchObject({ error_code: "INVALID_REQUEST", issues: [{ path: "tool_calls" }] });
  });

  it("refuses a mapping that passes a 10,000-deep payload value as arguments with 400, instead of storing calls that cannot run", async () => {
    registerProbeWebhook("t-deep-args", {
      payload: z.looseObject({ data: z.unknown() }),
      map: ({ payload }) => [{ id: "deep", name: "hook_probe", arguments: { key: "deep", data: (payload as { data: unknown }).data } }],
    });
    const body = `{"data":${deepJson(10_000)}}`;
    const res = await post("t-deep-args", body, await genericHeaders(body));
    expect(res.status).toBe(400);
    const answer = await json<{ error_code: string; issues: { message: string }[] }>(res);
    expect(answer.error_code).toBe("INVALID_REQUEST");
    expect(answer.issues[0]?.message).toMatch(
      /^the hook mapped this payload to arguments for hook_probe \(deep\) nested deeper than 64 levels \(at data\.a\.a\./,
    );
    expect(await deliveryRows("t-deep-args")).toBe(0);
    expect((await webhookEvents("t-deep-args")).map((e) => e.outcome)).toEqual(["rejected_payload"]);
  });
});

describe("replays", () => {
  it("a replayed delivery id answers the first delivery's id and status, and nothing runs twice", async () => {
    registerProbeWebhook("t-replay", { verify: "github" });
    const body = keysBody("replay-seq");
    const headers = await githubHeaders(body, { delivery: "gh-delivery-replay-1" });
    const first = await json<Accepted>(await post("t-replay", body, headers));
    await waitForDelivery(first.delivery_id);
    const again = await post("t-replay", body, headers);
    expect(again.status).toBe(200);
    expect(await json(again)).toEqual({ delivery_id: first.delivery_id, hook: "t-replay", status: "done", replay: true });
    expect(probeRuns.get("replay-seq")).toBe(1);
    expect((await webhookEvents("t-replay", 3)).map((e) => e.outcome)).toEqual(["accepted", "done", "replay"]);
  });

  it("twenty concurrent copies of one delivery make one delivery and one run", async () => {
    registerProbeWebhook("t-replay-concurrent");
    const body = keysBody("replay-concurrent");
    const headers = await genericHeaders(body, { delivery: "concurrent-1" });
    const responses = await Promise.all(Array.from({ length: 20 }, () => post("t-replay-concurrent", body, headers)));
    const answers = await Promise.all(responses.map((r) => json<Accepted>(r)));
    expect(responses.filter((r) => r.status === 202)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(19);
    expect(new Set(answers.map((a) => a.delivery_id)).size).toBe(1);
    await waitForDelivery(answers[0]?.delivery_id ?? "");
    expect(probeRuns.get("replay-concurrent")).toBe(1);
    expect(await deliveryRows("t-replay-concurrent")).toBe(1);
  });

  it("without a sender id, the same signed request is a replay but a newly signed one is not", async () => {
    registerProbeWebhook("t-replay-derived", { verify: "stripe" });
    const body = keysBody("replay-derived");
    const t = nowSeconds();
    const headers = await stripeHeaders(body, { t });
    expect((await post("t-replay-derived", body, headers)).status).toBe(202);
    expect((await post("t-replay-derived", body, headers)).status).toBe(200);
    expect((await post("t-replay-derived", body, await stripeHeaders(body, { t: t - 10 }))).status).toBe(202);
  });
});

describe("what a hook's calls may use", () => {
  it("a hook that declares no toolsets has every call refused with PERMISSION_DENIED", async () => {
    registerProbeWebhook("t-no-toolsets", { toolsets: [] });
    const body = keysBody("no-toolsets");
    const { delivery_id } = await json<Accepted>(await post("t-no-toolsets", body, await genericHeaders(body)));
    const view = await waitForDelivery(delivery_id);
    expect(view.results?.[0]).toMatchObject({ status: "error", error_code: "PERMISSION_DENIED" });
    expect(probeRuns.get("no-toolsets")).toBeUndefined();
  });

  it("the shipped generic hook runs core tools and refuses others", async () => {
    const body = JSON.stringify({
      tool_calls: [
        { id: "c1", type: "function", function: { name: "echo", arguments: '{"text":"from a webhook"}' } },
        { id: "c2", type: "function", function: { name: "github_repo", arguments: '{"owner":"cloudflare","repo":"workers-sdk"}' } },
      ],
    });
    const res = await post("generic", body, await genericHeaders(body));
    expect(res.status).toBe(202);
    const view = await waitForDelivery((await json<Accepted>(res)).delivery_id);
    expect(view.results?.map((r) => [r.id, r.status, r.error_code])).toEqual([
      ["c1", "ok", null],
      ["c2", "error", "PERMISSION_DENIED"],
    ]);
    expect(JSON.parse(view.results?.[0]?.content ?? "{}")).toEqual({ text: "from a webhook" });
  });

  it("the shipped GitHub hook maps ping to nothing and a push to github_repo in its web toolset", async () => {
    const ping = JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1 });
    const pinged = await post("github", ping, await githubHeaders(ping, { event: "ping" }));
    expect(pinged.status).toBe(202);
    expect(await json(pinged)).toMatchObject({ status: "done", calls: 0 });

    const push = JSON.stringify({ ref: "refs/heads/main", repository: { name: "workers-sdk", owner: { login: "cloudflare" } } });
    const pushed = await post("github", push, await githubHeaders(push, { event: "push" }));
    const view = await waitForDelivery((await json<Accepted>(pushed)).delivery_id);
    // Allowed by the webhook's toolset; unavailable only because the tests give no GITHUB_TOKEN.
    expect(view.results?.[0]).toMatchObject({ id: "push_repo", tool: "github_repo", error_code: "TOOL_UNAVAILABLE" });
    expect(view.results?.[0]?.content).toContain("GITHUB_TOKEN");
  });
});

describe("the hook's principal", () => {
  it("is rate limited like a key: past its calls per minute, calls end RATE_LIMITED", async () => {
    registerProbeWebhook("t-rate", { rateLimitPerMinute: 2 });
    const body = keysBody("rate-1", "rate-2", "rate-3");
    const { delivery_id } = await json<Accepted>(await post("t-rate", body, await genericHeaders(body)));
    const view = await waitForDelivery(delivery_id);
    expect(view.results?.map((r) => r.error_code)).toEqual([null, null, "RATE_LIMITED"]);
    expect(probeRuns.get("rate-3")).toBeUndefined();
  });

  it("gets the results POSTed to its callback URL, signed, once they are in", async () => {
    registerProbeWebhook("t-callback", { callbackUrl: "http://upstream.test/hook-callback/ok" });
    const body = keysBody("callback-e2e");
    const { delivery_id } = await json<Accepted>(await post("t-callback", body, await genericHeaders(body)));
    const view = await waitForDelivery(delivery_id, (v) => v.callback?.status === "delivered");
    expect(view).toMatchObject({ status: "done", callback: { status: "delivered", attempts: 1, error: null } });
  });
});

describe("reading deliveries", () => {
  it("needs a key, and an admin one", async () => {
    registerProbeWebhook("t-read");
    const body = keysBody("read");
    const { delivery_id } = await json<Accepted>(await post("t-read", body, await genericHeaders(body)));
    expect((await api(`/v1/hooks/deliveries/${delivery_id}`, { headers: { authorization: "" } })).status).toBe(401);
    const agent = await json<{ key: string }>(await api("/v1/keys", { body: { name: "hooks-reader", role: "agent" } }));
    expect((await api(`/v1/hooks/deliveries/${delivery_id}`, { headers: { authorization: `Bearer ${agent.key}` } })).status).toBe(403);
    expect((await api("/v1/hooks/events?hook=t-read", { headers: { authorization: `Bearer ${agent.key}` } })).status).toBe(403);
    expect((await api(`/v1/hooks/deliveries/${crypto.randomUUID()}`)).status).toBe(404);
  });

  it("lists events, refusals included, newest first, and the registered hooks", async () => {
    registerProbeWebhook("t-events");
    await post("t-events", "{}", {});
    const body = keysBody("events");
    const { delivery_id } = await json<Accepted>(await post("t-events", body, await genericHeaders(body)));
    await waitForDelivery(delivery_id);
    await webhookEvents("t-events", 3);
    const listed = await json<{ events: { outcome: string; delivery_id: string | null }[] }>(await api("/v1/hooks/events?hook=t-events"));
    expect(listed.events.map((e) => e.outcome)).toEqual(["done", "accepted", "missing_signature"]);
    const hooks = await json<{ hooks: { name: string; secret_configured: boolean; toolsets: string[] }[] }>(await api("/v1/hooks"));
    expect(hooks.hooks.find((h) => h.name === "github")).toMatchObject({ secret_configured: true, toolsets: ["web"] });
  });
});
