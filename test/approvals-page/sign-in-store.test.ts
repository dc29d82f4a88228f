/** Approvals-page sign-ins in KV: what the cookie id opens, for how long, and what KV itself holds. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createPageSignIn, deletePageSignIn, PAGE_SIGN_IN_TTL_SECONDS, readPageSignIn } from "../../src/approvals-page/sign-in-store.ts";
import { hashApiKey } from "../../src/auth/key-hash.ts";
import { approvalsPageSignInKey } from "../../src/storage/keys.ts";

const who = { keyDigest: "a".repeat(64), keyId: "key-1" };

describe("page sign-ins", () => {
  it("open with their cookie id until they end, and not a millisecond longer", async () => {
    const now = Date.parse("2026-05-01T12:00:00Z");
    const { id, signIn } = await createPageSignIn(env.KV, who, now);
    expect(signIn).toEqual({
      ...who,
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      createdAt: now,
      expiresAt: now + PAGE_SIGN_IN_TTL_SECONDS * 1000,
    });
    expect(await readPageSignIn(env.KV, id, now + 1000)).toEqual(signIn);
    expect(await readPageSignIn(env.KV, id, signIn.expiresAt - 1)).toEqual(signIn);
    expect(await readPageSignIn(env.KV, id, signIn.expiresAt)).toBeUndefined();
  });

  it("are stored under the id's digest, so KV never holds a usable cookie", async () => {
    const { id } = await createPageSignIn(env.KV, who);
    expect(await env.KV.get(approvalsPageSignInKey(id))).toBeNull();
    expect(await env.KV.get(approvalsPageSignInKey(hashApiKey(id)))).not.toBeNull();
    const { keys } = await env.KV.list({ prefix: "approvals-session:" });
    expect(keys.map((k) => k.name).join()).not.toContain(id);
  });

  it("give each sign-in its own id and CSRF token", async () => {
    const [a, b] = await Promise.all([createPageSignIn(env.KV, who), createPageSignIn(env.KV, who)]);
    expect(a.id).not.toBe(b.id);
    expect(a.signIn.csrfToken).not.toBe(b.signIn.csrfToken);
    expect(a.signIn.csrfToken).not.toBe(a.id);
  });

  it("end on delete, and a made-up or malformed record opens nothing", async () => {
    const { id } = await createPageSignIn(env.KV, who);
    await deletePageSignIn(env.KV, id);
    expect(await readPageSignIn(env.KV, id)).toBeUndefined();
    expect(await readPageSignIn(env.KV, "made-up")).toBeUndefined();
    await env.KV.put(approvalsPageSignInKey(hashApiKey("bad-record")), JSON.stringify({ keyId: "x" }));
    expect(await readPageSignIn(env.KV, "bad-record")).toBeUndefined();
  });
});
