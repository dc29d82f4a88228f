/**
 * POST /v1/hooks/deliveries/{id}/rerun: a failed delivery's stored calls run again through the
 * queue; anything not failed is a conflict; admins only.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { failedDelivery } from "./failed-delivery.ts";
import { waitForDelivery } from "./support.ts";

describe("re-running a delivery", () => {
  it("queues a failed delivery again; its calls run and the re-run is an event", async () => {
    const id = await failedDelivery();
    const response = await api(`/v1/hooks/deliveries/${id}/rerun`, { method: "POST" });
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ id, error: null, results: null, events: [{ outcome: "requeued" }] });
    const view = await waitForDelivery(id);
    expect(view.status).toBe("done");
    expect(view.results?.[0]).toMatchObject({ id: "c1", tool: "echo", status: "ok" });
    expect(view.attempts).toBe(4);
    // Done now: a second re-run is refused and changes nothing.
    const again = await api(`/v1/hooks/deliveries/${id}/rerun`, { method: "POST" });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toContain("only a failed delivery");
  });

  it("refuses a delivery that is not failed, an unknown one, and every role but admin", async () => {
    const queued = await failedDelivery("awaiting_approval");
    expect((await api(`/v1/hooks/deliveries/${queued}/rerun`, { method: "POST" })).status).toBe(409);
    expect((await api(`/v1/hooks/deliveries/no-such-delivery/rerun`, { method: "POST" })).status).toBe(404);
    const id = await failedDelivery();
    for (const role of ["approver", "agent"] as const) {
      const key = await createKey({ name: `rerun-${role}-${crypto.randomUUID()}`, role });
      const response = await api(`/v1/hooks/deliveries/${id}/rerun`, { method: "POST", headers: { authorization: `Bearer ${key.key}` } });
      expect([role, response.status]).toEqual([role, 403]);
    }
    const row = await env.DB.prepare("SELECT status FROM hook_deliveries WHERE id = ?").bind(id).first<{ status: string }>();
    expect(row?.status).toBe("failed");
  });
});
