/**
 * The requester checks for principals that are not API keys: the admin token and webhooks
 * (defined in code, so their access is derived again from the hook registry), and a key id that
 * names nothing. Real D1 and KV.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { requesterAccess } from "../../src/approvals/requester-access.ts";
import { registerProbeWebhook } from "../webhooks/support.ts";

describe("checking the requester of an approved call again", () => {
  it("lets the admin token use every tool while ADMIN_TOKEN is set, and refuses once it is unset", async () => {
    const now = await requesterAccess(env, "admin-token");
    expect(now.ok && now.access.decide("apr_anything").allowed).toBe(true);
    expect(await requesterAccess({ ...env, ADMIN_TOKEN: "" } as Env, "admin-token")).toMatchObject({ ok: false, rule: "requester:admin_token_unset" });
  });

  it("derives a hook's access from the registry: its toolsets, and nothing once it is gone or disabled", async () => {
    registerProbeWebhook("rq-hook");
    const access = await requesterAccess(env, "hook:rq-hook");
    expect(access.ok && access.access.decide("hook_probe").allowed).toBe(true);
    expect(access.ok && access.access.decide("http_request").allowed).toBe(false);
    expect(await requesterAccess(env, "hook:rq-missing")).toMatchObject({ ok: false, rule: "requester:hook_unregistered" });
    expect(await requesterAccess({ ...env, HOOK_TEST_SECRET: "" } as Env, "hook:rq-hook")).toMatchObject({ ok: false, rule: "requester:hook_disabled" });
  });

  it("refuses a key id that names no key (deleted, or a door that named none)", async () => {
    expect(await requesterAccess(env, "unknown")).toMatchObject({ ok: false, rule: "requester:deleted", message: expect.stringContaining("no longer exists") });
  });
});
