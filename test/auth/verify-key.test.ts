/** verifyKey: the one key check behind bearer auth and the approvals page. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { KeyCache } from "../../src/auth/key-cache.ts";
import { hashApiKey } from "../../src/auth/key-hash.ts";
import { createApiKey, revokeApiKey } from "../../src/auth/key-store.ts";
import { verifyKey, verifyKeyDigest } from "../../src/auth/verify-key.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";

const newKey = (name: string) =>
  createApiKey(env.DB, {
    name,
    role: "approver",
    toolsets: null,
    policy: { mode: "deny", patterns: [] },
    rateLimitPerMinute: null,
    scopes: [],
    createdBy: "test",
  });

describe("verifyKey", () => {
  it("knows the admin token and a stored key, and returns the digest it checked", async () => {
    expect(await verifyKey(env, TEST_ADMIN_TOKEN)).toMatchObject({
      ok: true,
      principal: { keyId: "admin-token", role: "admin" },
      digest: hashApiKey(TEST_ADMIN_TOKEN),
    });
    const { key, record } = await newKey("verify-stored");
    expect(await verifyKey(env, key)).toMatchObject({ ok: true, principal: { keyId: record.id, role: "approver" } });
    expect(await verifyKey(env, `${key}x`)).toEqual({ ok: false, reason: "unknown_key" });
  });

  it("without a cache, refuses a revoked key at once, even one another cache still trusts", async () => {
    const { key, record } = await newKey("verify-revoked");
    const cache = new KeyCache();
    expect((await verifyKey(env, key, { cache })).ok).toBe(true);
    const revoked = await revokeApiKey(env.DB, record.id);
    expect(await verifyKeyDigest(env, hashApiKey(key))).toEqual({ ok: false, reason: "revoked_key", revokedAt: revoked?.revokedAt });
    // The cache's bound (key-cache.ts): it may trust the key for up to its TTL.
    expect((await verifyKey(env, key, { cache })).ok).toBe(true);
  });
});
