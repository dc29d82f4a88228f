/**
 * How a webhook delivery reports an outcome of the approvals layer (a call that needs approval
 * ends `pending_approval` with `approval: {id, expiresAt, url}`). The outcomes here are typed
 * CallOutcomes written by hand; approval-settled.test.ts produces real ones end to end.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deliveryStatusOf } from "../../src/formats/outcome-wire.ts";
import type { CallOutcome } from "../../src/pipeline/types.ts";
import { claimDelivery, finishDelivery, insertDelivery } from "../../src/webhooks/delivery-store.ts";
import { storedResult } from "../../src/webhooks/run-delivery.ts";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";

const base: CallOutcome = {
  callId: "c1",
  tool: "echo",
  toolset: "core",
  status: "ok",
  content: "{}",
  arguments: {},
  durationMs: 3,
  attempts: 1,
  coercions: [],
  truncated: false,
  resultChars: 2,
};
const pending: CallOutcome = {
  ...base,
  callId: "c2",
  status: "pending_approval",
  errorCode: "APPROVAL_REQUIRED",
  approval: { id: "appr_1", expiresAt: 1_900_000_000_000, url: "https://toolgate.test/approvals/appr_1" },
};

describe("a delivery with a call waiting for approval", () => {
  it("is awaiting_approval, and its result carries the approval", () => {
    const results = [storedResult(base), storedResult(pending)];
    expect(deliveryStatusOf(results)).toBe("awaiting_approval");
    expect(results[1]).toMatchObject({
      status: "pending_approval",
      error_code: "APPROVAL_REQUIRED",
      approval: { id: "appr_1", expires_at: 1_900_000_000_000, url: "https://toolgate.test/approvals/appr_1" },
    });
    expect(deliveryStatusOf([storedResult(base), storedResult({ ...base, status: "error", errorCode: "EXECUTION_FAILED" })])).toBe("done");
  });

  it("shows its approval ids on GET /v1/hooks/deliveries/{id}", async () => {
    const id = crypto.randomUUID();
    await insertDelivery(env.DB, { id, hook: "generic", providerDeliveryId: id, receivedAt: Date.now(), calls: [], status: "queued", callbackPending: false });
    expect(await claimDelivery(env.DB, id, Date.now())).toBe(true);
    const results = [storedResult(base), storedResult(pending)];
    expect(await finishDelivery(env.DB, id, deliveryStatusOf(results), results, Date.now())).toBe(true);
    const view = await json<{ status: string; approvals: unknown[] }>(await api(`/v1/hooks/deliveries/${id}`));
    expect(view.status).toBe("awaiting_approval");
    expect(view.approvals).toEqual([{ call_id: "c2", id: "appr_1", expires_at: 1_900_000_000_000, url: "https://toolgate.test/approvals/appr_1" }]);
  });
});
