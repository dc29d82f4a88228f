/**
 * Signing in to the approvals page and the defences around its session: who may sign in, the
 * cookie's attributes, CSRF and origin checks, revocation and sign-out, and the page headers.
 */
import { describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";
import { csrfOf, PageClient, SESSION_COOKIE as SIGNED_IN_COOKIE, signInCsrf } from "./page-client.ts";

function attributesOf(response: Response, cookie: string): string {
  const line = response.headers.getSetCookie().find((l) => l.startsWith(`${cookie}=`));
  expect(line, `a Set-Cookie for ${cookie}`).toBeDefined();
  return line ?? "";
}

async function signedIn(role: "approver" | "admin" = "approver"): Promise<{ client: PageClient; key: { id: string; key: string } }> {
  const key = await createKey({ name: `page-${role}-${crypto.randomUUID()}`, role });
  const client = new PageClient();
  expect((await client.signIn(key.key)).status).toBe(303);
  return { client, key };
}

describe("the sign-in page", () => {
  it("is what a visitor without a session gets, with a labelled key field and a CSRF token", async () => {
    const client = new PageClient();
    const response = await client.get("/approvals");
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(client.lastPage).toMatch(/^<!DOCTYPE html>/);
    expect(client.lastPage).toContain('<label for="api-key">');
    expect(client.lastPage).toContain('<meta name="viewport" content="width=device-width, initial-scale=1"/>');
    expect(csrfOf(client.lastPage)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(attributesOf(response, "__Host-toolgate-sign-in")).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
  });

  it("carries the security headers: no script, no framing, no referrer, no caching", async () => {
    const response = await new PageClient().get("/approvals");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("script-src");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it("serves its stylesheet publicly, under the same policy", async () => {
    const response = await new PageClient().get("/approvals/page.css");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await response.text()).toContain("@media (max-width: 40rem)");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
  });
});

describe("signing in", () => {
  it("turns an approver key into a __Host- session cookie that is HttpOnly, Secure and SameSite=Strict", async () => {
    const key = await createKey({ name: "page-approver-cookie", role: "approver" });
    const client = new PageClient();
    const response = await client.signIn(key.key);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/approvals");
    const cookie = attributesOf(response, SIGNED_IN_COOKIE);
    expect(cookie).toMatch(/^__Host-toolgate-session=[A-Za-z0-9_-]{43}; Max-Age=28800; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    expect(cookie).not.toMatch(/domain=/i);
    // The key itself never reaches a cookie or a page.
    expect(response.headers.getSetCookie().join("\n")).not.toContain(key.key);
  });

  it("accepts the admin token", async () => {
    const response = await new PageClient().signIn(TEST_ADMIN_TOKEN);
    expect(response.status).toBe(303);
    attributesOf(response, SIGNED_IN_COOKIE);
  });

  it("refuses an unknown key with 401 and says so", async () => {
    const client = new PageClient();
    const response = await client.signIn("tg_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    expect(response.status).toBe(401);
    expect(client.lastPage).toContain("That API key is not valid.");
    expect(response.headers.getSetCookie().some((l) => l.startsWith(`${SIGNED_IN_COOKIE}=`))).toBe(false);
  });

  it("refuses an agent key with 403 naming its role: agents never approve", async () => {
    const agent = await createKey({ name: "page-agent-refused", role: "agent" });
    const client = new PageClient();
    const response = await client.signIn(agent.key);
    expect(response.status).toBe(403);
    expect(client.lastPage).toContain("has the agent role; the approvals page needs an approver or admin key");
    expect(client.cookies.has(SIGNED_IN_COOKIE)).toBe(false);
  });

  it("refuses a revoked key", async () => {
    const key = await createKey({ name: "page-revoked-before", role: "approver" });
    expect((await api(`/v1/keys/${key.id}`, { method: "DELETE" })).status).toBe(204);
    const client = new PageClient();
    expect((await client.signIn(key.key)).status).toBe(401);
    expect(client.lastPage).toContain("was revoked at");
  });

  it("refuses a sign-in form without its CSRF token, or with another one, with 403", async () => {
    const key = await createKey({ name: "page-sign-in-csrf", role: "approver" });
    const client = new PageClient();
    await client.get("/approvals/sign-in");
    expect((await client.post("/approvals/sign-in", { key: key.key })).status).toBe(403);
    await client.get("/approvals/sign-in");
    const response = await client.post("/approvals/sign-in", { key: key.key, csrf: "A".repeat(43) });
    expect(response.status).toBe(403);
    expect(client.lastPage).toContain("did not come from this page");
    expect(client.cookies.has(SIGNED_IN_COOKIE)).toBe(false);
  });

  it("refuses a form posted from another origin before looking at it", async () => {
    const key = await createKey({ name: "page-cross-origin", role: "approver" });
    const client = new PageClient();
    await client.get("/approvals/sign-in");
    const fields = { key: key.key, csrf: csrfOf(client.lastPage) };
    expect((await client.post("/approvals/sign-in", fields, { origin: "https://evil.example" })).status).toBe(403);
    expect((await client.post("/approvals/sign-in", fields, { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect(client.lastPage).toContain("sent from another site");
  });

  it("accepts Origin: null when Sec-Fetch-Site says same-origin, as browsers send under no-referrer", async () => {
    const key = await createKey({ name: "page-origin-null", role: "approver" });
    const client = new PageClient();
    await client.get("/approvals/sign-in");
    const response = await client.post(
      "/approvals/sign-in",
      { key: key.key, csrf: csrfOf(client.lastPage) },
      { origin: "null", "sec-fetch-site": "same-origin" },
    );
    expect(response.status).toBe(303);
  });

  it("asks a visitor who follows an agent's approval link to sign in, then returns there", async () => {
    const client = new PageClient();
    expect((await client.get("/approvals/some-approval-id")).status).toBe(401);
    expect(client.lastPage).toContain('name="next" value="/approvals/some-approval-id"');
  });

  it("returns to the page asked for, but never to another site", async () => {
    const key = await createKey({ name: "page-next", role: "approver" });
    expect((await new PageClient().signIn(key.key, "/approvals/sessions/abc")).headers.get("location")).toBe("/approvals/sessions/abc");
    for (const next of ["//evil.example/approvals", "https://evil.example", "/approvals/../v1/keys", "/\\evil.example"]) {
      expect((await new PageClient().signIn(key.key, next)).headers.get("location")).toBe("/approvals");
    }
  });
});

describe("a signed-in session", () => {
  it("refuses a decision posted without the session's CSRF token, or with a wrong one, with 403", async () => {
    const { client } = await signedIn();
    const missing = await client.post("/approvals/some-id/decision", { decision: "approve_once" });
    expect(missing.status).toBe(403);
    expect(client.lastPage).toContain("security token is missing or wrong, so nothing was changed");
    const wrong = await client.post("/approvals/some-id/decision", { decision: "approve_once", csrf: "B".repeat(43) });
    expect(wrong.status).toBe(403);
  });

  it("refuses the sign-in form's token in place of the session's", async () => {
    const key = await createKey({ name: "page-token-swap", role: "approver" });
    const client = new PageClient();
    await client.get("/approvals/sign-in");
    const signInToken = csrfOf(client.lastPage);
    await client.post("/approvals/sign-in", { key: key.key, csrf: signInToken });
    expect((await client.post("/approvals/sign-out", { csrf: signInToken })).status).toBe(403);
  });

  it("refuses a deny without a reason before deciding anything", async () => {
    const { client } = await signedIn();
    const csrf = await signInCsrf(client);
    const response = await client.post("/approvals/some-id/decision", { decision: "deny", reason: "   ", csrf });
    expect(response.status).toBe(400);
    expect(client.lastPage).toContain("Denying a call needs a reason");
  });

  it("ends when its key is revoked, on the very next request", async () => {
    const { client, key } = await signedIn();
    expect((await api(`/v1/keys/${key.id}`, { method: "DELETE" })).status).toBe(204);
    const response = await client.get("/approvals/no-such-page/x");
    expect(response.status).toBe(401);
    expect(client.lastPage).toContain("Your session ended: the key it was opened with was revoked at");
    expect(client.cookies.has(SIGNED_IN_COOKIE)).toBe(false);
  });

  it("ends on sign-out everywhere: the old cookie no longer opens the approvals page, the console or the chat page", async () => {
    const { client } = await signedIn("admin");
    const kept = client.cookies.get(SIGNED_IN_COOKIE) ?? "";
    expect((await client.post("/approvals/sign-out", { csrf: await signInCsrf(client) })).status).toBe(303);
    expect(client.cookies.has(SIGNED_IN_COOKIE)).toBe(false);
    for (const [page, signInForm] of [
      ["/approvals/no-such-page/x", "/approvals/sign-in"],
      ["/admin", "/admin/sign-in"],
      ["/chat", "/chat/sign-in"],
    ] as const) {
      client.cookies.set(SIGNED_IN_COOKIE, kept);
      expect((await client.get(page)).status).toBe(401);
      expect(client.lastPage).toContain("Your session has ended");
      expect(client.lastPage).toContain(`action="${signInForm}"`);
    }
  });

  it("refuses an agent key signed in at the chat page with a 403 page here, and keeps its chat sign-in", async () => {
    const agent = await createKey({ name: `page-agent-chat-${crypto.randomUUID()}`, role: "agent" });
    const client = new PageClient();
    await client.get("/chat/sign-in");
    expect((await client.post("/chat/sign-in", { key: agent.key, csrf: csrfOf(client.lastPage) })).status).toBe(303);
    for (const path of ["/approvals", "/approvals/some-approval-id"]) {
      expect((await client.get(path)).status).toBe(403);
      expect(client.lastPage).toContain("has the agent role; the approvals page needs an approver or admin key");
      expect(client.lastPage).toContain('<a href="/chat">Go to Chat</a>');
      expect(client.lastPage).not.toContain('href="/approvals"');
    }
    const decision = await client.post("/approvals/some-id/decision", { decision: "approve_once", csrf: csrfOf(client.lastPage) });
    expect(decision.status).toBe(403);
    expect((await client.get("/chat")).status).toBe(200);
    // Its sign-out button works from the refusal page too, and signs it out of the chat page.
    await client.get("/approvals");
    expect((await client.post("/approvals/sign-out", { csrf: csrfOf(client.lastPage) })).status).toBe(303);
    expect((await client.get("/chat")).status).toBe(401);
  });

  it("answers an unknown page with a 404 page, not JSON", async () => {
    const { client } = await signedIn();
    const response = await client.get("/approvals/no-such-page/x");
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(client.lastPage).toContain("There is no page at /approvals/no-such-page/x.");
  });
});
