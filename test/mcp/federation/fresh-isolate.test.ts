/**
 * Remote tools in an isolate that has not synced yet (`federation.reset()` stands in for a fresh
 * one): a webhook delivery's consumer registers them before it runs its calls, and a request
 * that fails authentication never makes the isolate call a remote server.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { federation } from "../../../src/mcp/federation/federation.ts";
import { registry } from "../../../src/registry/registry.ts";
import type { Delivery } from "../../../src/webhooks/delivery-store.ts";
import { runDelivery } from "../../../src/webhooks/run-delivery.ts";
import type { WebhookEntry } from "../../../src/webhooks/webhook-registry.ts";
import { testParts } from "../../support/dispatch.ts";
import { FAKE_MCP_HOST } from "../../support/test-env.ts";
import { addServer, fedApi, fedEnv } from "./helpers.ts";

const GREET = "mcp__fresh__greet";

beforeAll(async () => {
  await addServer({ name: "fresh", url: `http://${FAKE_MCP_HOST}/pinned` });
});
beforeEach(() => {
  federation.reset();
  expect(registry.has(GREET)).toBe(false);
});
afterEach(() => federation.reset());

describe("an isolate that has not synced", () => {
  it("registers remote tools before a webhook delivery's calls run", async () => {
    const hook: WebhookEntry = {
      name: "fresh",
      description: "test",
      verify: "hmac",
      secretEnv: "HOOK_FRESH_SECRET",
      toolsets: ["mcp-fresh"],
      payload: z.unknown(),
      map: () => [],
    };
    const now = Date.now();
    const delivery: Delivery = {
      id: crypto.randomUUID(),
      hook: "fresh",
      providerDeliveryId: crypto.randomUUID(),
      receivedAt: now,
      status: "running",
      calls: [{ id: "c1", name: GREET, arguments: { name: "Ada" } }],
      results: null,
      error: null,
      attempts: 1,
      claimedAt: now,
      updatedAt: now,
      callbackStatus: null,
      callbackAttempts: 0,
      callbackError: null,
    };
    const pending: Promise<unknown>[] = [];
    const run = await runDelivery(delivery, hook, fedEnv, (promise) => pending.push(promise), testParts);
    await Promise.all(pending);
    expect(run.status).toBe("done");
    expect(run.results[0]).toMatchObject({ tool: GREET, status: "ok" });
    expect(run.results[0]?.content).toContain("Hello, Ada!");
  });

  it("does not sync for a request without a valid key, on /v1 or /mcp", async () => {
    const stranger = { authorization: "Bearer not-a-key" };
    expect((await fedApi("/v1/tools", { headers: stranger })).status).toBe(401);
    const mcpCall = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    // fedApi's host, past the DNS-rebinding check, so only the key decides.
    const mcpEnv = { ...fedEnv, MCP_ALLOWED_HOSTS: "toolgate.test" } as Env;
    const mcpHeaders = { ...stranger, accept: "application/json, text/event-stream" };
    expect((await fedApi("/mcp", { body: mcpCall, headers: mcpHeaders, env: mcpEnv })).status).toBe(401);
    expect((await fedApi("/mcp/mcp-fresh", { body: mcpCall, headers: mcpHeaders, env: mcpEnv })).status).toBe(401);
    expect(registry.has(GREET)).toBe(false);

    // The same /mcp request with the key syncs, and lists the remote tool.
    const listed = await fedApi("/mcp", { body: mcpCall, headers: { accept: "application/json, text/event-stream" }, env: mcpEnv });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(await listed.json())).toContain(GREET);
  });
});
