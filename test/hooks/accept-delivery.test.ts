/**
 * POST /v1/hooks/{name} end to end through the Worker: real signatures, the real queue and its
 * consumer, D1 and the audit log. Each test uses its own hook name, so events never mix.
 */
import { describe, expect, it } from "vitest";
import { api, json } from "../http/helpers.ts";
import { genericHeaders, hookEvents, post, probeRuns, registerProbeHook, waitForDelivery } from "./support.ts";

describe("a generic HMAC delivery", () => {
  it("is answered 202 with a delivery id, then its calls run in the background", async () => {
    registerProbeHook("t-generic-ok");
    const body = JSON.stringify({ keys: ["gen-ok-1", "gen-ok-2"] });
    const res = await post("t-generic-ok", body, await genericHeaders(body));
    expect(res.status).toBe(202);
    const accepted = await json<{ delivery_id: string; status: string; calls: number }>(res);
    expect(accepted).toMatchObject({ status: "queued", calls: 2, replay: false });
    const view = await waitForDelivery(accepted.delivery_id);
    expect(view.status).toBe("done");
    expect(view.results?.map((r) => [r.id, r.status])).toEqual([["probe_0", "ok"], ["probe_1", "ok"]]);
    expect(probeRuns.get("gen-ok-1")).toBe(1);
    expect((await hookEvents("t-generic-ok", 2)).map((e) => e.outcome)).toEqual(["accepted", "done"]);
  });
});
