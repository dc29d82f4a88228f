/**
 * The webhooks page: hooks with their scheme and secret state, deliveries with status, events; a
 * failed delivery re-run through POST /v1/hooks/deliveries/{id}/rerun (admins only); a failing
 * deliveries table degrades to a notice.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.ts";
import { createKey } from "../support/create-key.ts";
import { testParts } from "../support/dispatch.ts";
import { failedDelivery } from "../webhooks/failed-delivery.ts";
import { waitForDelivery } from "../webhooks/support.ts";
import { adminSignIn, consoleCsrf, ORIGIN, PageClient, signedInAs } from "./admin-client.ts";

const rowOf = (page: string, attr: string, value: string) => new RegExp(`<tr ${attr}="${value}">[\\s\\S]*?</tr>`).exec(page)?.[0] ?? "";

describe("the webhooks page", () => {
  it("lists hooks with scheme and secret state, and deliveries with status, error and a re-run for failed ones", async () => {
    const id = await failedDelivery();
    const { client } = await signedInAs("admin");
    expect((await client.get("/admin/webhooks")).status).toBe(200);
    const hook = rowOf(client.lastPage, "data-hook", "generic");
    expect(hook).toContain("/v1/hooks/generic");
    expect(hook).toMatch(/ set<|not set</);
    const row = rowOf(client.lastPage, "data-delivery", id);
    expect(row).toContain("failed");
    expect(row).toContain("upstream 503");
    expect(row).toContain(`aria-label="Re-run ${id}"`);
    expect(client.lastPage).toContain("Recent events");

    await client.get("/admin/webhooks?status=done");
    expect(rowOf(client.lastPage, "data-delivery", id)).toBe("");
    // An unknown status filter shows every status instead of failing.
    expect((await client.get("/admin/webhooks?status=%3Cscript%3E")).status).toBe(200);
    expect(client.lastPage).not.toContain("<script>");
  });

  it("re-runs a failed delivery: its calls run again; a second re-run is the API's conflict", async () => {
    const id = await failedDelivery();
    const { client } = await signedInAs("admin");
    const csrf = await consoleCsrf(client);
    const response = await client.post(`/admin/webhooks/deliveries/${id}/rerun`, { csrf });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/admin/webhooks?rerun=${id}`);
    expect((await waitForDelivery(id)).status).toBe("done");
    expect((await client.post(`/admin/webhooks/deliveries/${id}/rerun`, { csrf })).status).toBe(409);
    expect(client.lastPage).toContain("only a failed delivery can be re-run");
    expect((await client.post(`/admin/webhooks/deliveries/%3Cb%3Enope/rerun`, { csrf })).status).toBe(404);
    expect(client.lastPage).not.toContain("<b>nope");
  });

  it("refuses approvers and agents, and a re-run without the CSRF token or from another origin", async () => {
    const id = await failedDelivery();
    const approver = await signedInAs("approver");
    expect((await approver.client.get("/admin/webhooks")).status).toBe(403);
    expect(approver.client.lastPage).toContain("the admin console needs an admin key");
    expect((await approver.client.post(`/admin/webhooks/deliveries/${id}/rerun`, { csrf: await consoleCsrf(approver.client) })).status).toBe(403);

    const agent = await createKey({ name: `hooks-agent-${crypto.randomUUID()}`, role: "agent" });
    const stranger = new PageClient();
    expect((await adminSignIn(stranger, agent.key)).status).toBe(403);
    expect((await stranger.get("/admin/webhooks")).status).toBe(401);

    const { client } = await signedInAs("admin");
    expect((await client.post(`/admin/webhooks/deliveries/${id}/rerun`, {})).status).toBe(403);
    expect((await client.post(`/admin/webhooks/deliveries/${id}/rerun`, { csrf: "A".repeat(43) })).status).toBe(403);
    expect((await client.post(`/admin/webhooks/deliveries/${id}/rerun`, { csrf: await consoleCsrf(client) }, { origin: "https://evil.example" })).status).toBe(
      403,
    );
    const row = await env.DB.prepare("SELECT status FROM hook_deliveries WHERE id = ?").bind(id).first<{ status: string }>();
    expect(row?.status).toBe("failed");
  });

  it("answers a re-run the queue cannot take with the API's 503, the delivery still failed", async () => {
    const id = await failedDelivery();
    const { client } = await signedInAs("admin");
    const csrf = await consoleCsrf(client);
    // The real bindings, with a queue that is down, as an outage of it would be.
    // biome-ignore lint/plugin/no-double-cast: a fake queue binding with only the send the page calls
    const queueDown = { ...env, HOOKS_QUEUE: { send: () => Promise.reject(new Error("simulated queue outage")) } } as unknown as Env;
    const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await createApp(testParts).request(
      `${ORIGIN}/admin/webhooks/deliveries/${id}/rerun`,
      { method: "POST", body: new URLSearchParams({ csrf }), headers: { cookie, origin: ORIGIN, "sec-fetch-site": "same-origin" } },
      queueDown,
    );
    expect(response.status).toBe(503);
    expect(await response.text()).toContain("could not be queued again");
    const row = await env.DB.prepare("SELECT status FROM hook_deliveries WHERE id = ?").bind(id).first<{ status: string }>();
    expect(row?.status).toBe("failed");
  });

  it("turns a deliveries table that cannot be read into a notice, keeping the hooks", async () => {
    const { client } = await signedInAs("admin");
    // The real D1, failing every statement on the webhook tables, as an outage of them would.
    const failing = new Proxy(env.DB, {
      get(target, prop) {
        if (prop === "prepare") {
          return (sql: string) => {
            if (sql.includes("hook_")) throw new Error("D1_ERROR: simulated outage");
            return target.prepare(sql);
          };
        }
        const value = Reflect.get(target, prop) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await createApp(testParts).request(`${ORIGIN}/admin/webhooks`, { headers: { cookie } }, { ...env, DB: failing } as Env);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("The webhook deliveries (D1) could not be read just now");
    expect(html).toContain("The webhook events (D1) could not be read just now");
    expect(html).toContain('data-hook="generic"');
  });
});
