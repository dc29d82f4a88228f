/** Page sessions in KV: what the cookie id opens, for how long, and what KV itself holds. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/auth/key-hash.ts";
import { createPageSession, deletePageSession, PAGE_SESSION_TTL_SECONDS, readPageSession } from "../../src/approvals-page/page-session.ts";
import { approvalsPageSessionKey } from "../../src/storage/keys.ts";

const who = { keyDigest: "a".repeat(64), keyId: "key-1" };

describe("page sessions", () => {
  it("open with their cookie id until they end, and not a millisecond longer", async () => {
    const now = Date.parse("2026-05-01T12:00:00Z");
    const { id, session } = await createPageSession(env.KV, who, now);
    expect(session).toEqual({ ...who, csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), createdAt: now, expiresAt: now + PAGE_SESSION_TTL_SECONDS * 1000 });
    expect(await readPageSession(env.KV, id, now + 1000)).toEqual(session);
    expect(await readPageSession(env.KV, id, session.expiresAt - 1)).toEqual(session);
    expect(await readPageSession(env.KV, id, session.expiresAt)).toBeUndefined();
  });

  it("are stored under the id's digest, so KV never holds a usable cookie", async () => {
    const { id } = await createPageSession(env.KV, who);
    expect(await env.KV.get(approvalsPageSessionKey(id))).toBeNull();
    expect(await env.KV.get(approvalsPageSessionKey(hashApiKey(id)))).not.toBeNull();
    const { keys } = await env.KV.list({ prefix: "approvals-session:" });
    expect(keys.map((k) => k.name).join()).not.toContain(id);
  });

  it("give each session its own id and CSRF token", async () => {
    const [a, b] = await Promise.all([createPageSession(env.KV, who), createPageSession(env.KV, who)]);
    expect(a.id).not.toBe(b.id);
    expect(a.session.csrfToken).not.toBe(b.session.csrfToken);
    expect(a.session.csrfToken).not.toBe(a.id);
  });

  it("end on delete, and a made-up or malformed record opens nothing", async () => {
    const { id } = await createPageSession(env.KV, who);
    await deletePageSession(env.KV, id);
    expect(await readPageSession(env.KV, id)).toBeUndefined();
    expect(await readPageSession(env.KV, "made-up")).toBeUndefined();
    await env.KV.put(approvalsPageSessionKey(hashApiKey("bad-record")), JSON.stringify({ keyId: "x" }));
    expect(await readPageSession(env.KV, "bad-record")).toBeUndefined();
  });
});
